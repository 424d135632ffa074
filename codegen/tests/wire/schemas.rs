//! Compiled into the crate generated from `tests/specs/schemas.yaml` by `compile.rs` (not a
//! test of codegen itself): `allOf` overrides, extra properties, defaults and integer and
//! mixed enums decode as the spec says and encode back to the same JSON, values a newer
//! server adds included.

use std::collections::BTreeMap;

use gen_schemas::models::*;
use serde_json::{Value, json};

/// Decodes `value`, checks it encodes back unchanged, and returns the decoded value.
fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(value: Value) -> T {
    let decoded: T = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(serde_json::to_value(&decoded).unwrap(), value);
    decoded
}

#[test]
fn all_of_overrides_win_and_required_is_merged() {
    let item: Item = round_trip(json!({"id": "a", "size": "large", "note": "n"}));
    // `size` is a string (the override's type) and required (the override's `required`).
    let size: &String = &item.size;
    assert_eq!(size, "large");
    assert_eq!(item.note, "n");
    // Without `size` the object is refused: `required` of both parts holds.
    assert!(serde_json::from_value::<Item>(json!({"id": "a"})).is_err());
    // `note` refined by the override keeps the base's type and takes its default.
    let item: Item = serde_json::from_value(json!({"id": "a", "size": "s"})).unwrap();
    assert_eq!(item.note, "none given");
    assert_eq!(Item::default_note(), "none given");
}

#[test]
fn extra_properties_are_a_typed_map_beside_the_fields() {
    let tags: Tags = round_trip(json!({"name": "t", "a": 1, "b": 2}));
    assert_eq!(tags.name, "t");
    assert_eq!(tags.extra, BTreeMap::from([("a".to_owned(), 1), ("b".to_owned(), 2)]));
    // An extra of the wrong type breaks the schema and is refused.
    assert!(serde_json::from_value::<Tags>(json!({"name": "t", "a": "x"})).is_err());
    let free: Settings = round_trip(json!({"retries": 1, "ratio": 0.5, "verbose": false,
        "label": "l", "order": "asc", "level": 3, "colour": {"any": ["json"]}}));
    assert_eq!(free.extra["colour"], json!({"any": ["json"]}));
}

#[test]
fn absent_fields_take_the_spec_defaults() {
    let settings: Settings = serde_json::from_value(json!({})).unwrap();
    assert_eq!(settings.retries, 3);
    assert_eq!(settings.ratio, 0.5);
    assert!(settings.verbose);
    assert_eq!(settings.label, "plain");
    assert_eq!(settings.order, SettingsOrder::Desc);
    assert_eq!(settings.level, Level::V2);
    // Nullable and non-scalar defaults are documented, not applied.
    assert_eq!(settings.limit, None);
    assert_eq!(settings.ids, None);
    assert_eq!(Settings::default(), settings);
    // Defaults are sent: the server sees what the client assumed.
    assert_eq!(
        serde_json::to_value(&settings).unwrap(),
        json!({"retries": 3, "ratio": 0.5, "verbose": true, "label": "plain",
            "order": "desc", "level": 2})
    );
}

#[test]
fn integer_enums_round_trip_and_keep_new_values() {
    assert_eq!(round_trip::<Level>(json!(1)), Level::V1);
    assert_eq!(round_trip::<Level>(json!(-1)), Level::Minus1);
    assert_eq!(round_trip::<Level>(json!(7)), Level::Unknown(7));
    assert_eq!(Level::V3.to_string(), "3");
    assert!(serde_json::from_value::<Level>(json!("1")).is_err());
}

#[test]
fn mixed_enums_round_trip_and_keep_new_values() {
    assert_eq!(round_trip::<Mixed>(json!("auto")), Mixed::Auto);
    assert_eq!(round_trip::<Mixed>(json!(1)), Mixed::V1);
    assert_eq!(round_trip::<Mixed>(json!(2.5)), Mixed::V2p5);
    assert_eq!(round_trip::<Mixed>(json!(false)), Mixed::False);
    assert_eq!(round_trip::<Mixed>(json!("manual")), Mixed::Unknown(json!("manual")));
    assert_eq!(round_trip::<Mixed>(json!(2)), Mixed::Unknown(json!(2)));
    assert_eq!(Mixed::V2p5.to_string(), "2.5");
    assert_eq!(Mixed::Auto.to_string(), "auto");
}

#[test]
fn one_of_beside_properties_is_the_shared_struct() {
    // Both branches' values decode into the one struct of the listed properties.
    let done: Run = round_trip(json!({"name": "n", "status": "completed", "conclusion": "ok"}));
    assert_eq!(done.status, Some(RunStatus::Completed));
    assert_eq!(done.conclusion.as_deref(), Some("ok"));
    let queued: Run = round_trip(json!({"name": "n", "status": "queued"}));
    assert_eq!(queued.conclusion, None);
    // The listed `required` still holds.
    assert!(serde_json::from_value::<Run>(json!({"status": "queued"})).is_err());
}

#[test]
fn any_of_branch_fields_are_optional_fields_of_the_struct() {
    let by_post: Delivery = round_trip(json!({"id": "d", "tracking": "T1"}));
    assert_eq!(by_post.tracking.as_deref(), Some("T1"));
    assert_eq!(by_post.pickup_at, None);
    // The `$ref` branch's property, typed as its schema says.
    let picked: Delivery = round_trip(json!({"id": "d", "pickup_at": 1700000000}));
    let at: Option<i64> = picked.pickup_at;
    assert_eq!(at, Some(1_700_000_000));
    assert!(serde_json::from_value::<Delivery>(json!({"id": "d", "pickup_at": "x"})).is_err());
}

#[test]
fn a_const_without_type_is_typed_from_its_value() {
    let fixed: Fixed = round_trip(json!({
        "kind": "fixed",
        "version": 2,
        "ratio": 0.5,
        "enabled": true,
        "typed": "given"
    }));
    let kind: &String = &fixed.kind;
    let version: i64 = fixed.version;
    let ratio: Option<f64> = fixed.ratio;
    let enabled: Option<bool> = fixed.enabled;
    let typed: Option<String> = fixed.typed;
    assert_eq!(
        (kind.as_str(), version, ratio, enabled, typed.as_deref()),
        ("fixed", 2, Some(0.5), Some(true), Some("given"))
    );
    let name: FixedName = "fixed-name".to_owned();
    assert_eq!(serde_json::to_value(&name).unwrap(), json!("fixed-name"));
}
