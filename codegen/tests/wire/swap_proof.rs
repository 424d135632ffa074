//! Swap-proof constructors: copied into the crate generated from
//! `tests/specs/swap_proof.yaml` by `tests/compile.rs`.
use gen_swap_proof::models::{LimitSet, OutageCreate};

/// Stands in for `build()` where the builder has none: an inherent method wins over a
/// trait's, so `.build()` reaches this only on a builder whose required fields are not
/// all set. A test that gets a `&str` back proves `build()` is not reachable there (were
/// it, the call would return the model and the test would not compile).
trait Unbuildable: Sized {
    fn build(self) -> &'static str {
        "not buildable yet"
    }
}
impl<T> Unbuildable for T {}

#[test]
fn three_strings_are_set_by_name_in_any_order() {
    let body = OutageCreate::builder()
        .start_dttm("2026-01-01T00:00:00Z")
        .short_descr("database upgrade")
        .severity(2)
        .end_dttm("2026-01-01T02:00:00Z")
        .build()
        .with_notes("rolling");
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        serde_json::json!({
            "end_dttm": "2026-01-01T02:00:00Z",
            "short_descr": "database upgrade",
            "start_dttm": "2026-01-01T00:00:00Z",
            "severity": 2,
            "notes": "rolling",
            "retries": 3
        })
    );
}

#[test]
fn build_is_not_reachable_before_every_required_field_is_set() {
    let partial = OutageCreate::builder()
        .end_dttm("2026-01-01T02:00:00Z")
        .start_dttm("2026-01-01T00:00:00Z")
        .severity(1);
    assert_eq!(partial.clone().build(), "not buildable yet");
    assert_eq!(OutageCreate::builder().build(), "not buildable yet");
    // The last one set, it is the model's.
    let body: OutageCreate = partial.short_descr("x").build();
    assert_eq!(body.short_descr, "x");
}

#[test]
fn distinct_types_keep_the_positional_new() {
    let body = LimitSet::new("daily", 100, true);
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        serde_json::json!({"name": "daily", "amount": 100, "active": true})
    );
}
