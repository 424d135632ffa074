//! Turning wire names into Rust identifiers.
//!
//! Wire names come from other languages' conventions (`userId`, `o-auth-token`,
//! `POAContact`, `5min`), so every identifier the generator prints passes through here:
//! one place decides case, keyword escapes and de-duplication, and the emitters never
//! invent names of their own. It lives in the spec crate, not the generator, because the
//! conformance harness names an operation without `operationId` as the generated client
//! does, and must not link the generator for that.

use std::collections::HashSet;

/// Words Rust reserves (strict and reserved keywords of every edition up to 2024).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Splits a wire name into words at separators and at case changes.
///
/// `streetAddress1` gives `street`, `Address1` (digits stay with the word before them, so
/// the snake form is `street_address1`), `POAContact` gives `POA`, `Contact`, and
/// `o-auth-token` gives `o`, `auth`, `token`.
///
/// A word is a run of ASCII letters and digits, so it is a slice of the name, and the
/// scan goes byte by byte (any byte of a non-ASCII character is a separator, as the
/// character is): the lowering names thousands of types, fields and parameters, and
/// with the words as owned strings, from a vector of the name's characters, naming was
/// a sixth of its instructions.
fn words(name: &str) -> Vec<&str> {
    let b = name.as_bytes();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, &c) in b.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if let Some(s) = start.take() {
                out.push(&name[s..i]);
            }
            continue;
        }
        let Some(s) = start else {
            start = Some(i);
            continue;
        };
        if c.is_ascii_uppercase() {
            // The word has begun, so the byte before is one of its letters or digits.
            let prev = b[i - 1];
            let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower);
            if boundary {
                out.push(&name[s..i]);
                start = Some(i);
            }
        }
    }
    if let Some(s) = start {
        out.push(&name[s..]);
    }
    out
}

/// `snake_case` form of a wire name, escaped so that it is a valid Rust identifier.
pub fn snake(name: &str) -> String {
    let mut joined = String::with_capacity(name.len() + 4);
    for (i, w) in words(name).iter().enumerate() {
        if i > 0 {
            joined.push('_');
        }
        joined.extend(w.bytes().map(|c| char::from(c.to_ascii_lowercase())));
    }
    escape(if joined.is_empty() {
        "value".to_owned()
    } else {
        joined
    })
}

/// `PascalCase` form of a wire name; a name that already is `PascalCase` (`OAuthToken`)
/// keeps its spelling. Fully upper-case words of more than one letter become title case
/// (`CME` gives `Cme`) because clippy's `upper_case_acronyms` rejects them as type names.
pub fn pascal(name: &str) -> String {
    let ws = words(name);
    let is_upper = |w: &&str| {
        w.bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && w.bytes().filter(u8::is_ascii_uppercase).count() > 1
    };
    let all_upper = ws.iter().all(is_upper);
    let mut out = String::with_capacity(name.len() + 1);
    for w in &ws {
        let (first, rest) = w.split_at(1);
        out.push(char::from(first.as_bytes()[0].to_ascii_uppercase()));
        if all_upper {
            out.extend(rest.bytes().map(|c| char::from(c.to_ascii_lowercase())));
        } else {
            out.push_str(rest);
        }
    }
    if out.is_empty() {
        out.push_str("Value");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    escape(out)
}

/// Makes a name a valid, non-keyword identifier: a leading digit gets a prefix and a
/// keyword gets a trailing underscore (raw identifiers cannot spell `self` or `crate`).
fn escape(mut s: String) -> String {
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        let prefix = if s.chars().any(|c| c.is_ascii_uppercase()) {
            "V"
        } else {
            "v"
        };
        s.insert_str(0, prefix);
    }
    if KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// Every method `Client` has of its own, public or private, inherent or from a trait it
/// implements: the operation methods (and credential accessors) share one `impl Client`
/// with them, so lowering reserves these names before it names any operation, and an
/// operationId `send` or `new` becomes `send2`/`new2` rather than a duplicate method.
///
/// The generator's emitters (`codegen/src/emit/client.rs`, `emit/auth.rs`) print these
/// methods; codegen's test `client_methods_are_reserved` parses the client of every focused spec and fails when
/// one of its fixed methods is missing here.
pub const CLIENT_METHODS: &[&str] = &[
    // Construction and settings (codegen's `emit/client.rs`).
    "new",
    "builder",
    "with_client",
    "set_max_response_bytes",
    "max_response_bytes",
    "set_timeout",
    "timeout",
    "set_retry_policy",
    "retry_policy",
    "set_check_arguments",
    "check_arguments",
    "add_hook",
    "with_header",
    "with_headers",
    "base_url",
    "http_client",
    // Private helpers of the operation methods (codegen's `emit/client.rs`).
    "prepare",
    "execute",
    "send",
    "exchange",
    "only",
    "detached",
    // Credentials (codegen's `emit/auth.rs`), besides each scheme's [`credential_accessors`].
    "set_token_source",
    "set_bearer_token",
    "clear_bearer_token",
    "has_bearer_token",
    "authorize",
    // Trait methods: an inherent method of the same name would be called instead by
    // `client.clone()` or `{:?}`.
    "clone",
    "clone_from",
    "fmt",
];

/// The `Client` methods that set, clear, test and source the credential of the security
/// scheme whose accessor stem is `stem`.
pub fn credential_accessors(stem: &str) -> [String; 4] {
    [
        format!("set_{stem}"),
        format!("clear_{stem}"),
        format!("has_{stem}"),
        format!("set_{stem}_source"),
    ]
}

/// Hands out unique names within one scope (a module's types, a struct's fields, a
/// method's arguments): a second `foo` becomes `foo2`, a third `foo3`.
#[derive(Debug, Default, Clone)]
pub struct Scope {
    taken: HashSet<String>,
}

impl Scope {
    /// Reserves `name`, or the first free numbered variant of it, and returns it.
    pub fn claim(&mut self, name: String) -> String {
        // Room for a method's locals and arguments from the start: grown from empty, the
        // set was rehashed at each doubling, a tenth of the lowering's instructions.
        if self.taken.capacity() == 0 {
            self.taken.reserve(32);
        }
        if self.taken.insert(name.clone()) {
            return name;
        }
        // A type's keyword escape (`Self_`) numbered as `Self_2` would not be upper camel
        // case: a type name is numbered on its stem (`Self2`, not a keyword).
        let stem = match name.strip_suffix('_') {
            Some(stem) if stem.starts_with(|c: char| c.is_ascii_uppercase()) => stem,
            _ => name.as_str(),
        };
        (2..)
            .map(|n| format!("{stem}{n}"))
            .find(|candidate| !self.taken.contains(candidate))
            .inspect(|free| {
                self.taken.insert(free.clone());
            })
            .unwrap_or(name)
    }

    /// Whether `name` is already taken.
    pub fn contains(&self, name: &str) -> bool {
        self.taken.contains(name)
    }

    /// Frees `name` again (claimed for something since dropped); whether it was taken.
    pub fn release(&mut self, name: &str) -> bool {
        self.taken.remove(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words as they were found before the byte scan, character by character.
    fn words_by_chars(name: &str) -> Vec<String> {
        let chars: Vec<char> = name.chars().collect();
        let mut out = Vec::new();
        let mut cur = String::new();
        for (i, &c) in chars.iter().enumerate() {
            if !c.is_ascii_alphanumeric() {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                continue;
            }
            if c.is_ascii_uppercase() && !cur.is_empty() {
                let prev = chars[i - 1];
                let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
                if prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next_lower)
                {
                    out.push(std::mem::take(&mut cur));
                }
            }
            cur.push(c);
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    #[test]
    fn the_byte_scan_finds_the_words_the_character_scan_found() {
        for name in [
            "",
            "a",
            "streetAddress1",
            "POAContact",
            "o-auth-token",
            "5min",
            "HTTPServerURL2x",
            "ABCdEF",
            "aÉb",
            "Éa",
            "xÄBc",
            "naïveCafé",
            "日本Abc語Def",
            "a__b--C",
            "ÀB",
            "X",
            "getV1UsersByIDAndNAME",
        ] {
            assert_eq!(words(name), words_by_chars(name), "{name}");
        }
    }

    #[test]
    fn snake_follows_the_contract() {
        assert_eq!(snake("userId"), "user_id");
        assert_eq!(snake("streetAddress1"), "street_address1");
        assert_eq!(snake("httpAuth"), "http_auth");
        assert_eq!(snake("grant_type"), "grant_type");
        assert_eq!(snake("o-auth-token"), "o_auth_token");
        assert_eq!(snake("exchangeToken"), "exchange_token");
        assert_eq!(snake("amountSOD"), "amount_sod");
        assert_eq!(snake("oso1Id"), "oso1_id");
        assert_eq!(snake("type"), "type_");
        assert_eq!(snake("self"), "self_");
        assert_eq!(snake("1st"), "v1st");
        assert_eq!(snake("-"), "value");
    }

    #[test]
    fn pascal_keeps_pascal_names() {
        assert_eq!(pascal("OAuthToken"), "OAuthToken");
        assert_eq!(pascal("POAContact"), "POAContact");
        assert_eq!(pascal("invalid_grant"), "InvalidGrant");
        assert_eq!(pascal("o-auth-token"), "OAuthToken");
        assert_eq!(pascal("CME"), "Cme");
        assert_eq!(pascal("5min"), "V5min");
        assert_eq!(pascal("Self"), "Self_");
        let mut scope = Scope::default();
        assert_eq!(scope.claim(pascal("Self")), "Self_");
        assert_eq!(scope.claim(pascal("Self")), "Self2");
        assert_eq!(scope.claim("type_".to_owned()), "type_");
        assert_eq!(scope.claim("type_".to_owned()), "type_2");
    }

    #[test]
    fn scope_numbers_duplicates() {
        let mut s = Scope::default();
        assert_eq!(s.claim("a".into()), "a");
        assert_eq!(s.claim("a".into()), "a2");
        assert_eq!(s.claim("a".into()), "a3");
    }
}
