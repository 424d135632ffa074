//! Compiled into the crate generated from `tests/specs/unions.yaml` by `compile.rs` (not a
//! test of codegen itself): sample values of every union form decode into the variant
//! they should and encode back to the same JSON, unknown shapes and tags included.

use gen_unions::models::*;
use serde_json::{Value, json};

/// Decodes `value`, checks it encodes back unchanged, and returns the decoded value.
fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(value: Value) -> T {
    let decoded: T = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(serde_json::to_value(&decoded).unwrap(), value);
    decoded
}

#[test]
fn tagged_unions_decode_by_their_tag() {
    assert_eq!(
        round_trip::<Shape>(json!({"type": "circle", "radius": 1.5})),
        Shape::Circle(ShapeCircle { radius: 1.5 })
    );
    assert_eq!(
        round_trip::<Shape>(json!({"type": "rectangle", "width": 1.0, "height": 2.0})),
        Shape::Rectangle(ShapeRectangle {
            width: 1.0,
            height: 2.0,
            label: None
        })
    );
    assert_eq!(round_trip::<Shape>(json!({"type": "empty"})), Shape::Empty);
    let maybe: Thing = serde_json::from_value(thing(json!({"kind": "number", "n": 4}))).unwrap();
    assert_eq!(
        maybe.maybe,
        Some(Some(ThingMaybe::Number(ThingMaybeNumber { n: 4 })))
    );
    let absent: Thing = serde_json::from_value(thing(Value::Null)).unwrap();
    assert_eq!(absent.maybe, None);
    // Optional and nullable: an explicit `null` is a state of its own.
    let mut null = thing(Value::Null);
    null["maybe"] = Value::Null;
    let null: Thing = serde_json::from_value(null).unwrap();
    assert_eq!(null.maybe, Some(None));
}

#[test]
fn an_unknown_tag_or_a_broken_variant_is_kept_not_refused() {
    let hexagon = json!({"type": "hexagon", "side": 3});
    assert_eq!(round_trip::<Shape>(hexagon.clone()), Shape::Unknown(hexagon));
    let no_radius = json!({"type": "circle"});
    assert_eq!(round_trip::<Shape>(no_radius.clone()), Shape::Unknown(no_radius));
    let snake = json!({"petType": "snake", "legs": 0});
    assert_eq!(round_trip::<Pet>(snake.clone()), Pet::Unknown(snake));
}

#[test]
fn a_discriminator_uses_its_mapping_or_the_component_name() {
    assert_eq!(
        round_trip::<Pet>(json!({"petType": "doggo", "breed": "collie"})),
        Pet::Doggo(Dog {
            breed: "collie".into()
        })
    );
    assert_eq!(
        round_trip::<Pet>(json!({"petType": "Cat", "lives": 9})),
        Pet::Cat(PetCat { lives: 9 })
    );
    // `Cat` is referenced elsewhere too, so it keeps its tag field; `Dog` is not and
    // exists once, as the variant's data.
    let cat: Cat = round_trip(json!({"petType": "Cat", "lives": 9}));
    assert_eq!(cat.pet_type, "Cat");
    assert_eq!(
        round_trip::<Pet>(json!({"petType": "Lizard", "scales": true})),
        Pet::Lizard(Lizard { scales: true })
    );
}

#[test]
fn recursive_unions_nest() {
    let value = json!({
        "type": "volume",
        "id": "root",
        "sub_volumes": [{"type": "file", "path": "/a"}],
        "parent": {"type": "volume", "id": "up", "sub_volumes": []}
    });
    let Volume::Volume(root) = round_trip::<Volume>(value) else {
        panic!("not a volume")
    };
    assert_eq!(root.sub_volumes, [Volume::File(VolumeFile { path: "/a".into() })]);
    assert!(matches!(root.parent.as_deref(), Some(Volume::Volume(up)) if up.id == "up"));
}

#[test]
fn untagged_variants_are_tried_most_specific_first() {
    let long = json!({"name": "a", "age": 3});
    // In the spec's order `Short` comes first, and it accepts this value, losing `age`.
    let short: Short = serde_json::from_value(long.clone()).unwrap();
    assert_eq!(serde_json::to_value(short).unwrap(), json!({"name": "a"}));
    // The generated enum tries `Long` first and keeps everything.
    assert_eq!(
        round_trip::<Who>(long),
        Who::Long(Long {
            name: "a".into(),
            age: 3
        })
    );
    assert_eq!(
        round_trip::<Who>(json!({"name": "b"})),
        Who::Short(Short { name: "b".into() })
    );
    // An integer stays an integer (a float tried first would send back `3.0`).
    assert_eq!(round_trip::<Amount>(json!(3)), Amount::Integer(3));
    assert_eq!(round_trip::<Amount>(json!(2.5)), Amount::Number(2.5));
}

#[test]
fn untagged_unions_keep_what_no_branch_accepts() {
    assert_eq!(round_trip::<Mixed>(json!(true)), Mixed::Boolean(true));
    assert_eq!(round_trip::<Mixed>(json!(["x"])), Mixed::Array(vec!["x".into()]));
    assert_eq!(
        round_trip::<Mixed>(json!({"name": "n"})),
        Mixed::Short(Short { name: "n".into() })
    );
    assert_eq!(round_trip::<Mixed>(json!("s")), Mixed::String("s".into()));
    assert_eq!(round_trip::<Mixed>(json!(5)), Mixed::Unknown(json!(5)));
    assert_eq!(round_trip::<Amount>(json!("many")), Amount::Unknown(json!("many")));
}

#[test]
fn unions_of_strings_are_string_enums() {
    assert_eq!(round_trip::<State>(json!("running")), State::Running);
    assert_eq!(round_trip::<State>(json!("stopped")), State::Stopped);
    assert_eq!(round_trip::<State>(json!("paused")), State::Unknown("paused".into()));
    assert_eq!(
        round_trip::<DiskState>(json!("detached")),
        DiskState::String(DiskStateString::Detached)
    );
    assert_eq!(
        round_trip::<DiskState>(json!({"attached": "vm"})),
        DiskState::Object(DiskStateObject {
            attached: "vm".into()
        })
    );
}

#[test]
fn a_scalar_union_displays_as_a_path_segment() {
    assert_eq!(NameOrId::Name("web".into()).to_string(), "web");
    // `Id` is `format: uuid`: a name is not one, so it is the `Name` branch, and a UUID
    // is an `Id` (and prints as the path segment it came as).
    assert_eq!(round_trip::<NameOrId>(json!("web")), NameOrId::Name("web".into()));
    let id = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
    let decoded = round_trip::<NameOrId>(json!(id));
    assert_eq!(decoded, NameOrId::Id(id.parse().unwrap()));
    assert_eq!(decoded.to_string(), id);
    assert_eq!(Amount::Integer(7).to_string(), "7");
}

/// A `Thing` with every required field and `maybe` set to `maybe` (left out if null).
fn thing(maybe: Value) -> Value {
    let mut value = json!({
        "shape": {"type": "empty"},
        "pet": {"petType": "Lizard", "scales": false},
        "volume": {"type": "file", "path": "/"},
        "who": {"name": "w"},
        "state": "starting",
        "amount": 1,
        "sort": "ascending",
        "disk": "faulted",
        "mixed": false
    });
    if !maybe.is_null() {
        value["maybe"] = maybe;
    }
    value
}
