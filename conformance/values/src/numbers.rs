//! Integers and numbers within `minimum`/`maximum` (inclusive or exclusive), the ranges of
//! `int32`/`int64`, and `multipleOf`. Small positive values are preferred where the bounds
//! allow: they are the likeliest to mean something to a real API (ids, counts, limits).

use rand::RngExt;
use rand::rngs::ChaCha8Rng;
use serde_json::{Number, Value};

use crate::Unsupported;
use crate::flat::{Bound, Flat};

/// The integer range of `f`, bounds and format applied, clamped to `i64`.
pub(crate) fn integer_range(f: &Flat) -> (i128, i128) {
    let mut lo = i128::from(i64::MIN);
    let mut hi = i128::from(i64::MAX);
    if f.format.as_deref() == Some("int32") {
        lo = i128::from(i32::MIN);
        hi = i128::from(i32::MAX);
    }
    if let Some(b) = f.min {
        let v = lowest_int(b);
        lo = lo.max(v);
    }
    if let Some(b) = f.max {
        let v = highest_int(b);
        hi = hi.min(v);
    }
    (lo, hi)
}

fn lowest_int(b: Bound) -> i128 {
    match b.int {
        Some(i) => i + i128::from(b.exclusive),
        None => {
            let c = b.v.ceil();
            let c = if b.exclusive && c == b.v { c + 1.0 } else { c };
            c.clamp(-1e30, 1e30) as i128
        }
    }
}

fn highest_int(b: Bound) -> i128 {
    match b.int {
        Some(i) => i - i128::from(b.exclusive),
        None => {
            let c = b.v.floor();
            let c = if b.exclusive && c == b.v { c - 1.0 } else { c };
            c.clamp(-1e30, 1e30) as i128
        }
    }
}

/// A start near which to draw: 1 when allowed, else the bound nearest to it.
fn anchor(lo: i128, hi: i128) -> i128 {
    if lo <= 1 && 1 <= hi {
        1
    } else if lo > 1 {
        lo
    } else {
        (hi - 99).max(lo)
    }
}

/// An integer for `f`.
pub(crate) fn integer(f: &Flat, rng: &mut ChaCha8Rng) -> Result<Value, Unsupported> {
    let (lo, hi) = integer_range(f);
    let ptr = if f.range_ptr.is_empty() {
        &f.ptr
    } else {
        &f.range_ptr
    };
    if lo > hi {
        return Err(Unsupported::new(ptr, format!("no integer in {lo}..={hi}")));
    }
    let ints: Vec<i128> = f
        .multiple_of
        .iter()
        .filter(|m| m.fract() == 0.0 && **m < 9e15)
        .map(|m| *m as i128)
        .collect();
    let floats: Vec<f64> = f
        .multiple_of
        .iter()
        .copied()
        .filter(|m| m.fract() != 0.0 || *m >= 9e15)
        .collect();
    let step = ints.iter().fold(1i128, |acc, m| lcm(acc, *m));
    // Multiples of `step` in range: k from ⌈lo/step⌉ to ⌊hi/step⌋.
    let klo = div_ceil(lo, step);
    let khi = div_floor(hi, step);
    if klo > khi {
        return Err(Unsupported::new(
            ptr,
            format!("no multiple of {step} in {lo}..={hi}"),
        ));
    }
    let start = anchor(klo, khi);
    for _ in 0..200 {
        let k = rng.random_range(start..=(start + 99).min(khi));
        let v = k * step;
        if floats.iter().all(|m| is_multiple(v as f64, *m)) {
            return Ok(Value::from(i64::try_from(v).unwrap_or(i64::MAX)));
        }
    }
    // A fractional multipleOf: walk up from the start for a value that is a multiple of all.
    for k in start..=(start + 100_000).min(khi) {
        let v = k * step;
        if floats.iter().all(|m| is_multiple(v as f64, *m)) {
            return Ok(Value::from(i64::try_from(v).unwrap_or(i64::MAX)));
        }
    }
    Err(Unsupported::new(
        ptr,
        format!(
            "no integer multiple of {:?} found in {lo}..={hi}",
            f.multiple_of
        ),
    ))
}

/// Whether `v` is a multiple of `m` the way validators test it (the quotient is whole).
pub(crate) fn is_multiple(v: f64, m: f64) -> bool {
    let q = v / m;
    q.is_finite() && q.fract() == 0.0
}

fn lcm(a: i128, b: i128) -> i128 {
    fn gcd(a: i128, b: i128) -> i128 {
        if b == 0 { a.abs() } else { gcd(b, a % b) }
    }
    if a == 0 || b == 0 {
        return 0;
    }
    (a / gcd(a, b) * b).abs()
}

fn div_ceil(a: i128, b: i128) -> i128 {
    let d = a / b;
    if a % b != 0 && ((a > 0) == (b > 0)) {
        d + 1
    } else {
        d
    }
}

fn div_floor(a: i128, b: i128) -> i128 {
    let d = a / b;
    if a % b != 0 && ((a > 0) != (b > 0)) {
        d - 1
    } else {
        d
    }
}

/// Decimal places of `m` as written (0.01 → 2), so multiples can be rounded to them.
fn decimals(m: f64) -> usize {
    let s = format!("{m}");
    s.split_once('.').map_or(0, |(_, d)| d.len())
}

/// A number for `f` (not necessarily whole).
pub(crate) fn number(f: &Flat, rng: &mut ChaCha8Rng) -> Result<Value, Unsupported> {
    let ptr = if f.range_ptr.is_empty() {
        &f.ptr
    } else {
        &f.range_ptr
    };
    let lo = f.min.map_or(-1e15, |b| b.v);
    let hi = f.max.map_or(1e15, |b| b.v);
    let lo_ok = |v: f64| {
        f.min
            .is_none_or(|b| if b.exclusive { v > b.v } else { v >= b.v })
    };
    let hi_ok = |v: f64| {
        f.max
            .is_none_or(|b| if b.exclusive { v < b.v } else { v <= b.v })
    };
    if lo > hi
        || (lo == hi && (f.min.is_some_and(|b| b.exclusive) || f.max.is_some_and(|b| b.exclusive)))
    {
        return Err(Unsupported::new(
            ptr,
            format!("no number between {lo} and {hi}"),
        ));
    }
    let ok = |v: f64| {
        v.is_finite() && lo_ok(v) && hi_ok(v) && f.multiple_of.iter().all(|m| is_multiple(v, *m))
    };
    if let Some(&m) = f.multiple_of.first() {
        let d = decimals(m);
        let klo = (lo / m).ceil().max(-1e15) as i128;
        let khi = (hi / m).floor().min(1e15) as i128;
        if klo > khi + 1 {
            return Err(Unsupported::new(
                ptr,
                format!("no multiple of {m} between {lo} and {hi}"),
            ));
        }
        let start = anchor(klo, khi);
        for i in 0..400 {
            let k = if i < 200 {
                rng.random_range(start..=(start + 99).min(khi.max(start)))
            } else {
                start + i128::from(i - 200)
            };
            let v: f64 = format!("{:.*}", d, k as f64 * m)
                .parse()
                .unwrap_or(f64::NAN);
            if ok(v) {
                return Ok(json_number(v));
            }
        }
        return Err(Unsupported::new(
            ptr,
            format!(
                "no number found that is a multiple of {:?} between {lo} and {hi}",
                f.multiple_of
            ),
        ));
    }
    // Quarter steps near the lower end (or 1 when allowed), then the midpoint.
    let base = if lo <= 1.0 && 1.0 <= hi {
        1.0
    } else if lo > 1.0 {
        lo.ceil()
    } else {
        (hi - 99.0).max(lo).ceil()
    };
    for _ in 0..50 {
        let v = base + f64::from(rng.random_range(0..400u32)) * 0.25;
        if ok(v) {
            return Ok(json_number(v));
        }
    }
    let mid = lo / 2.0 + hi / 2.0;
    if ok(mid) {
        return Ok(json_number(mid));
    }
    Err(Unsupported::new(
        ptr,
        format!("no number found between {lo} and {hi}"),
    ))
}

fn json_number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        // Whole numbers stay integers in JSON (`3`, not `3.0`): valid for `number` too.
        return Value::from(v as i64);
    }
    Number::from_f64(v).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn flat(min: Option<(f64, bool)>, max: Option<(f64, bool)>, m: &[f64]) -> Flat<'static> {
        let b = |(v, exclusive): (f64, bool)| Bound {
            v,
            int: (v.fract() == 0.0).then_some(v as i128),
            exclusive,
        };
        Flat {
            min: min.map(b),
            max: max.map(b),
            multiple_of: m.to_vec(),
            ..Flat::default()
        }
    }

    #[test]
    fn exclusive_integer_bounds() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..50 {
            let v = integer(&flat(Some((0.0, true)), Some((2.0, true)), &[]), &mut rng).unwrap();
            assert_eq!(v, Value::from(1));
        }
        assert!(integer(&flat(Some((1.0, true)), Some((2.0, true)), &[]), &mut rng).is_err());
    }

    #[test]
    fn float_multiples() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..50 {
            let v = number(
                &flat(Some((0.0, false)), Some((1.0, false)), &[0.01]),
                &mut rng,
            )
            .unwrap();
            let x = v.as_f64().unwrap();
            assert!((0.0..=1.0).contains(&x) && is_multiple(x, 0.01), "{x}");
            let v = integer(&flat(None, None, &[0.5, 3.0]), &mut rng).unwrap();
            assert_eq!(v.as_i64().unwrap() % 3, 0);
        }
        assert!(
            integer(
                &flat(Some((1.0, false)), Some((2.0, false)), &[5.0]),
                &mut rng
            )
            .is_err()
        );
    }
}
