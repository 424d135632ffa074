//! Strings: from a `pattern` (with `rand_regex`, the pattern read as [`crate::ecma`]
//! says), from a `format`, or plain, within `minLength`/`maxLength` (counted in code
//! points, as JSON Schema counts).

use base64::Engine as _;
use rand::RngExt;
use rand::rngs::ChaCha8Rng;
use regex_syntax::hir::{Hir, HirKind};

use crate::Unsupported;
use crate::ecma::{Purpose, leading_lookarounds, matches, rewrite};
use crate::flat::Flat;

/// A string generator for `pattern`, or why there is none.
fn generator(
    pattern: &str,
    max_repeat: u32,
    lo: u64,
    hi: u64,
) -> Result<rand_regex::Regex, String> {
    // Leading lookarounds are checked on the result (`matches`), not generated.
    let (_, rest) = leading_lookarounds(pattern);
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&rewrite(&rest, Purpose::Generate))
        .map_err(|e| format!("pattern {pattern:?} is not a regex this generator reads: {e}"))?;
    rand_regex::Regex::with_hir(fit_lengths(strip_looks(hir), lo, hi), max_repeat)
        .map_err(|e| format!("pattern {pattern:?}: {e}"))
}

/// Characters every match of `h` has, when that number is fixed.
fn fixed_len(h: &Hir) -> Option<u64> {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(0),
        HirKind::Literal(l) => Some(std::str::from_utf8(&l.0).ok()?.chars().count() as u64),
        HirKind::Class(_) => Some(1),
        HirKind::Capture(c) => fixed_len(&c.sub),
        HirKind::Concat(hs) => hs.iter().map(fixed_len).sum(),
        HirKind::Repetition(r) if r.max == Some(r.min) => {
            Some(fixed_len(&r.sub)? * u64::from(r.min))
        }
        _ => None,
    }
}

/// A pattern of fixed parts around one repeated character class (`^[0-9a-f]+$`,
/// `^v\d{1,3}$`) with that repetition narrowed to what `minLength`/`maxLength` allow, so a
/// length-bound value is generated directly instead of being hit by chance.
fn fit_lengths(h: Hir, lo: u64, hi: u64) -> Hir {
    if lo == 0 && hi == u64::MAX {
        return h;
    }
    let parts: Vec<Hir> = match h.kind() {
        HirKind::Concat(hs) => hs.clone(),
        _ => vec![h.clone()],
    };
    let lens: Vec<Option<u64>> = parts.iter().map(fixed_len).collect();
    let variable: Vec<usize> = (0..parts.len()).filter(|i| lens[*i].is_none()).collect();
    let [i] = variable[..] else {
        return h;
    };
    let fixed: u64 = lens.iter().flatten().sum();
    let HirKind::Repetition(r) = parts[i].kind() else {
        return h;
    };
    if fixed_len(&r.sub) != Some(1) {
        return h;
    }
    let min = u64::from(r.min).max(lo.saturating_sub(fixed));
    let max = r
        .max
        .map_or(u64::MAX, u64::from)
        .min(hi.saturating_sub(fixed));
    if min > max || min > u64::from(u32::MAX) {
        return h;
    }
    let mut rep = r.clone();
    rep.min = u32::try_from(min).unwrap_or(u32::MAX);
    rep.max = (max != u64::MAX).then(|| u32::try_from(max).unwrap_or(u32::MAX));
    let mut parts = parts;
    parts[i] = Hir::repetition(rep);
    Hir::concat(parts)
}

/// The HIR with anchors and word boundaries taken out: `rand_regex` cannot place them, and
/// a value made without them is checked against the real pattern afterwards.
fn strip_looks(h: Hir) -> Hir {
    match h.into_kind() {
        HirKind::Look(_) => Hir::empty(),
        HirKind::Capture(mut c) => {
            c.sub = Box::new(strip_looks(*c.sub));
            Hir::capture(c)
        }
        HirKind::Repetition(mut r) => {
            r.sub = Box::new(strip_looks(*r.sub));
            Hir::repetition(r)
        }
        HirKind::Concat(hs) => Hir::concat(hs.into_iter().map(strip_looks).collect()),
        HirKind::Alternation(hs) => Hir::alternation(hs.into_iter().map(strip_looks).collect()),
        other => other_kind(other),
    }
}

fn other_kind(k: HirKind) -> Hir {
    match k {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(l) => Hir::literal(l.0),
        HirKind::Class(c) => Hir::class(c),
        _ => Hir::empty(),
    }
}

fn len(s: &str) -> u64 {
    s.chars().count() as u64
}

/// A string for the string constraints of `f`.
pub(crate) fn string(f: &Flat, rng: &mut ChaCha8Rng) -> Result<String, Unsupported> {
    let (lo, hi) = (f.min_len, f.max_len.unwrap_or(u64::MAX));
    if lo > hi {
        return Err(Unsupported::new(
            &f.len_ptr,
            format!("minLength {lo} is above maxLength {hi}"),
        ));
    }
    if let Some((pattern, pptr)) = f.patterns.first() {
        let max_repeat = u32::try_from(lo.clamp(8, 64)).unwrap_or(64);
        let g = generator(pattern, max_repeat, lo, hi).map_err(|e| Unsupported::new(pptr, e))?;
        for _ in 0..64 {
            let mut s: String = rng.sample(&g);
            // Outside an end anchor, characters added after a match keep it a match.
            while len(&s) < lo && !pattern.ends_with('$') {
                s.push('a');
            }
            if !(lo..=hi).contains(&len(&s)) {
                continue;
            }
            let mut ok = true;
            for (p, pp) in &f.patterns {
                match matches(p, &s) {
                    Ok(true) => {}
                    Ok(false) => ok = false,
                    Err(e) => return Err(Unsupported::new(pp, format!("pattern {p:?}: {e}"))),
                }
            }
            if ok && f.format.as_deref().is_none_or(|fm| format_accepts(fm, &s)) {
                return Ok(s);
            }
        }
        return Err(Unsupported::new(
            pptr,
            format!(
                "no string found matching {} within length {lo}..={}{}",
                f.patterns
                    .iter()
                    .map(|(p, _)| format!("{p:?}"))
                    .collect::<Vec<_>>()
                    .join(" and "),
                f.max_len.map_or("∞".into(), |m| m.to_string()),
                f.format
                    .as_ref()
                    .map(|fm| format!(" and format {fm}"))
                    .unwrap_or_default()
            ),
        ));
    }
    if let Some(fm) = f.format.as_deref()
        && let Some(s) = formatted(fm, lo, hi, rng)
    {
        if !(lo..=hi).contains(&len(&s)) {
            return Err(Unsupported::new(
                &f.format_ptr,
                format!(
                    "format {fm} gives {} characters, outside minLength {lo} / maxLength {}",
                    len(&s),
                    f.max_len.map_or("∞".into(), |m| m.to_string())
                ),
            ));
        }
        return Ok(s);
    }
    let n = if hi < 4 {
        hi
    } else {
        rng.random_range(4..=12u64).clamp(lo, hi)
    };
    let n = n.max(lo);
    if n > 100_000 {
        return Err(Unsupported::new(
            &f.len_ptr,
            format!("minLength {lo} is too long to make"),
        ));
    }
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    Ok((0..n)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect())
}

/// Whether a string made for another reason (a pattern) also has the format; formats with
/// no rule here accept anything.
fn format_accepts(format: &str, s: &str) -> bool {
    match format {
        "uuid" => {
            s.len() == 36
                && s.chars().enumerate().all(|(i, c)| {
                    if [8, 13, 18, 23].contains(&i) {
                        c == '-'
                    } else {
                        c.is_ascii_hexdigit()
                    }
                })
        }
        _ => true,
    }
}

/// A value of a known format, or `None` for a format without rules.
fn formatted(format: &str, lo: u64, hi: u64, rng: &mut ChaCha8Rng) -> Option<String> {
    let word = |rng: &mut ChaCha8Rng| -> String {
        (0..6)
            .map(|_| (b'a' + rng.random_range(0..26u8)) as char)
            .collect()
    };
    Some(match format {
        "uuid" => {
            let b: [u8; 16] = rng.random();
            format!(
                "{:08x}-{:04x}-4{:03x}-{:x}{:03x}-{:012x}",
                u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
                u16::from_be_bytes([b[4], b[5]]),
                u16::from_be_bytes([b[6], b[7]]) & 0x0fff,
                8 + (b[8] & 0x3),
                u16::from_be_bytes([b[9], b[10]]) & 0x0fff,
                u64::from_be_bytes([0, 0, b[11], b[12], b[13], b[14], b[15], b[0]])
                    & 0xffff_ffff_ffff
            )
        }
        "date-time" => format!("{}T{}Z", date(rng), time(rng)),
        "date" => date(rng),
        "time" => format!("{}Z", time(rng)),
        "duration" => format!("P{}D", rng.random_range(1..30)),
        "email" | "idn-email" => format!("{}@example.com", word(rng)),
        "hostname" | "idn-hostname" => format!("{}.example.com", word(rng)),
        "ipv4" => format!(
            "{}.{}.{}.{}",
            rng.random_range(1..=223u8),
            rng.random_range(0..=255u8),
            rng.random_range(0..=255u8),
            rng.random_range(1..=254u8)
        ),
        "ipv6" => format!(
            "2001:db8::{:x}:{:x}",
            rng.random_range(1..=0xffffu32),
            rng.random_range(1..=0xffffu32)
        ),
        "uri" | "url" | "iri" => format!("https://example.com/{}", word(rng)),
        "uri-reference" | "iri-reference" => format!("/{}", word(rng)),
        "uri-template" => format!("https://example.com/{}/{{id}}", word(rng)),
        "json-pointer" => format!("/{}", word(rng)),
        "relative-json-pointer" => format!("0/{}", word(rng)),
        "regex" => "^[a-z]+$".to_string(),
        "byte" => {
            // Base64 of n bytes is 4·⌈n/3⌉ characters: pick n so the text fits the bounds.
            let fits: Vec<u64> = (0..=48u64)
                .filter(|n| (lo..=hi).contains(&(n.div_ceil(3) * 4)))
                .collect();
            let nice: Vec<u64> = fits.iter().copied().filter(|n| *n >= 3).collect();
            let pool = if nice.is_empty() { &fits } else { &nice };
            let n = if pool.is_empty() {
                lo.div_ceil(4) * 3
            } else {
                pool[rng.random_range(0..pool.len())]
            };
            let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            base64::engine::general_purpose::STANDARD.encode(bytes)
        }
        "int32" | "int64" => rng.random_range(1..100_000u32).to_string(),
        _ => return None,
    })
}

fn date(rng: &mut ChaCha8Rng) -> String {
    format!(
        "{}-{:02}-{:02}",
        rng.random_range(2000..=2030),
        rng.random_range(1..=12),
        rng.random_range(1..=28)
    )
}

fn time(rng: &mut ChaCha8Rng) -> String {
    format!(
        "{:02}:{:02}:{:02}",
        rng.random_range(0..24),
        rng.random_range(0..60),
        rng.random_range(0..60)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn flat(patterns: &[&str], lo: u64, hi: Option<u64>) -> Flat<'static> {
        Flat {
            patterns: patterns
                .iter()
                .map(|p| (p.to_string(), "/p".into()))
                .collect(),
            min_len: lo,
            max_len: hi,
            ..Flat::default()
        }
    }

    #[test]
    fn ecma_classes_are_ascii() {
        assert!(matches(r"^\d+$", "123").unwrap());
        assert!(!matches(r"^\d+$", "١٢٣").unwrap());
        assert!(!matches(r"^\w$", "é").unwrap());
        assert!(matches(r"^[\w.-]+$", "a.b-c").unwrap());
        assert!(!matches(r"^.$", "\r").unwrap());
        assert!(matches(r"^\u0041$", "A").unwrap());
    }

    #[test]
    fn anchored_patterns_with_lengths() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..20 {
            let s = string(&flat(&[r"^[A-Z]{2}\d{3}$"], 0, None), &mut rng).unwrap();
            assert!(matches(r"^[A-Z]{2}\d{3}$", &s).unwrap(), "{s}");
            let s = string(&flat(&[r"[a-z]"], 10, Some(12)), &mut rng).unwrap();
            assert!((10..=12).contains(&len(&s)), "{s}");
        }
    }

    #[test]
    fn a_lookaround_inside_is_unsupported_with_its_pointer() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let e = string(&flat(&[r"^a(?!x)b$"], 0, None), &mut rng).unwrap_err();
        assert_eq!(e.pointer, "/p");
        assert!(e.reason.contains("not a regex"), "{e}");
        let e = string(&flat(&[r"^(a)\1$"], 0, None), &mut rng).unwrap_err();
        assert!(e.reason.contains("not a regex"), "{e}");
    }

    #[test]
    fn leading_lookarounds_are_tested_not_generated() {
        // Oxide's Name: not a UUID, then a DNS-like label.
        let p = r"^(?![0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$)^[a-z][a-z0-9-]*[a-zA-Z0-9]$";
        assert!(!matches(p, "0b9c8f1e-2a3b-4c5d-8e9f-0a1b2c3d4e5f").unwrap());
        assert!(matches(p, "my-name").unwrap());
        assert!(!matches(r"^(?=.*\d)[a-z0-9]+$", "abc").unwrap());
        assert!(matches(r"^(?=.*\d)[a-z0-9]+$", "abc1").unwrap());
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..20 {
            let s = string(&flat(&[p], 1, Some(63)), &mut rng).unwrap();
            assert!(matches(p, &s).unwrap(), "{s}");
            let s = string(&flat(&[r"^(?=.*\d)[a-z0-9]+$"], 0, None), &mut rng).unwrap();
            assert!(s.chars().any(|c| c.is_ascii_digit()), "{s}");
        }
    }

    #[test]
    fn lengths_narrow_the_repetition() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..50 {
            let s = string(&flat(&["^[0-9a-fA-F]+$"], 40, Some(40)), &mut rng).unwrap();
            assert_eq!(len(&s), 40, "{s}");
            let s = string(&flat(&[r"^v\d+\.x$"], 0, Some(5)), &mut rng).unwrap();
            assert!(len(&s) <= 5 && s.starts_with('v'), "{s}");
        }
    }

    #[test]
    fn byte_fits_its_bounds() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for (lo, hi) in [(0, 8), (4, 4), (12, 100), (0, u64::MAX)] {
            let s = formatted("byte", lo, hi, &mut rng).unwrap();
            assert!((lo..=hi).contains(&len(&s)), "{lo} {hi} {s}");
            base64::engine::general_purpose::STANDARD
                .decode(&s)
                .unwrap();
        }
    }
}
