//! One test per keyword family, through the public API. Validity is judged by
//! `Generator::validate` (the `jsonschema` crate, formats asserted) and, where the point is
//! a precise value, by looking at the value itself.

use schema_values::{Direction, Generator, MutationKind, Shape, Unsupported};
use serde_json::{Value, json};

fn doc30(schemas: Value) -> Value {
    json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {},
           "components": {"schemas": schemas}})
}

fn doc31(schemas: Value) -> Value {
    json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
           "components": {"schemas": schemas}})
}

/// Values for seeds 0..20 and 12 variants, each checked valid.
fn values(g: &Generator<'_>, schema: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for seed in 0..20 {
        let v = g.generate(schema, seed).unwrap_or_else(|e| panic!("{e}"));
        g.validate(schema, &v)
            .unwrap_or_else(|e| panic!("{v}: {e}"));
        out.push(v);
    }
    for v in g.variants(schema, 5, 12).unwrap() {
        g.validate(schema, &v)
            .unwrap_or_else(|e| panic!("{v}: {e}"));
        out.push(v);
    }
    out
}

#[test]
fn same_seed_same_value() {
    let doc =
        serde_json::from_str::<Value>(include_str!("specs/prefect-3.9.1-openapi.json")).unwrap();
    let g = Generator::new(&doc);
    let s = &doc["components"]["schemas"]["FlowRunCreate"];
    let a = g
        .generate_at(s, "/components/schemas/FlowRunCreate", 42)
        .unwrap();
    let g2 = Generator::new(&doc);
    assert_eq!(
        g2.generate_at(s, "/components/schemas/FlowRunCreate", 42)
            .unwrap(),
        a
    );
    assert_eq!(g.variants(s, 9, 5).unwrap(), g2.variants(s, 9, 5).unwrap());
    assert_ne!(
        g.generate(&json!({"type": "string", "format": "uuid"}), 1)
            .unwrap(),
        g.generate(&json!({"type": "string", "format": "uuid"}), 2)
            .unwrap()
    );
}

#[test]
fn one_of_values_match_exactly_one_branch() {
    let doc = doc31(json!({}));
    let g = Generator::new(&doc);
    // Every string of at most 3 characters matches both branches: only longer ones fit.
    let s = json!({"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]});
    for v in values(&g, &s) {
        assert!(v.as_str().unwrap().chars().count() > 3, "{v}");
    }
    // Every integer is also a number: only non-integers match exactly one branch.
    let s = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
    for v in values(&g, &s) {
        assert!(v.as_f64().unwrap().fract() != 0.0, "{v}");
    }
    // Branches that can never be told apart are unsupported, with the branch's pointer.
    let s = json!({"oneOf": [{"type": "string"}, {"type": "string"}]});
    let e = g.generate_at(&s, "/x", 0).unwrap_err();
    assert!(e.pointer.starts_with("/x/oneOf/"), "{e}");
    assert!(e.reason.contains("also match another branch"), "{e}");
}

#[test]
fn variants_reach_every_branch_enum_value_and_optional_presence() {
    let doc = doc31(json!({
        "Cat": {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "cat"}, "lives": {"type": "integer"}}},
        "Dog": {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "dog"}, "color": {"enum": ["black", "white", "brown"]}}}
    }));
    let g = Generator::new(&doc);
    let s = json!({"anyOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}]});
    let vs = g.variants(&s, 0, 12).unwrap();
    for kind in ["cat", "dog"] {
        assert!(vs.iter().any(|v| v["kind"] == kind), "{kind}: {vs:?}");
    }
    for color in ["black", "white", "brown"] {
        assert!(vs.iter().any(|v| v["color"] == color), "{color}: {vs:?}");
    }
    assert!(vs.iter().any(|v| v.get("lives").is_some()));
    assert!(
        vs.iter()
            .any(|v| v["kind"] == "cat" && v.get("lives").is_none())
    );
    let distinct: std::collections::HashSet<String> = vs.iter().map(Value::to_string).collect();
    assert_eq!(distinct.len(), vs.len());
}

#[test]
fn all_of_parts_are_merged() {
    let doc = doc30(json!({
        "Base": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "minimum": 10}}},
    }));
    let g = Generator::new(&doc);
    let s = json!({"allOf": [
        {"$ref": "#/components/schemas/Base"},
        {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 5}, "id": {"maximum": 12}}}
    ]});
    for v in values(&g, &s) {
        let id = v["id"].as_i64().unwrap();
        assert!((10..=12).contains(&id), "{v}");
        assert!(v["name"].as_str().unwrap().len() >= 5, "{v}");
    }
    let e = g
        .generate_at(
            &json!({"allOf": [{"type": "string"}, {"type": "integer"}]}),
            "/s",
            0,
        )
        .unwrap_err();
    assert_eq!(e.pointer, "/s");
    assert!(e.reason.contains("no value in common"), "{e}");
}

#[test]
fn read_only_left_out_of_requests_write_only_out_of_responses() {
    let doc = doc30(json!({
        "User": {"type": "object", "required": ["id", "name", "password"], "properties": {
            "id": {"type": "string", "format": "uuid", "readOnly": true},
            "name": {"type": "string"},
            "password": {"type": "string", "writeOnly": true}}}
    }));
    let s = json!({"$ref": "#/components/schemas/User"});
    let req = Generator::new(&doc);
    for v in values(&req, &s) {
        assert!(v.get("id").is_none() && v.get("password").is_some(), "{v}");
    }
    let resp = Generator::new(&doc).with_direction(Direction::Response);
    for v in values(&resp, &s) {
        assert!(v.get("id").is_some() && v.get("password").is_none(), "{v}");
    }
    // A required property is not "missing" when it is one the direction leaves out.
    let v = req.generate(&s, 0).unwrap();
    let kinds: Vec<_> = req
        .mutations(&s, &v)
        .into_iter()
        .filter(|m| m.kind == MutationKind::RequiredMissing)
        .map(|m| m.description)
        .collect();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
}

#[test]
fn additional_properties_false_is_respected_and_schemas_fill_maps() {
    let doc = doc31(json!({}));
    let g = Generator::new(&doc);
    let closed = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false, "minProperties": 1});
    for v in values(&g, &closed) {
        assert_eq!(
            v.as_object().unwrap().keys().collect::<Vec<_>>(),
            vec!["a"],
            "{v}"
        );
    }
    let v = g.generate(&closed, 0).unwrap();
    let extra = g
        .mutations(&closed, &v)
        .into_iter()
        .find(|m| m.kind == MutationKind::ExtraProperty)
        .unwrap();
    assert!(g.validate(&closed, &extra.value).is_err());
    // Closed with too few names for minProperties: unsupported.
    let tight = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false, "minProperties": 2});
    let e = g.generate_at(&tight, "/t", 0).unwrap_err();
    assert!(e.reason.contains("minProperties"), "{e}");
    // A map: entries from the additionalProperties schema.
    let map = json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 7}, "minProperties": 2});
    for v in values(&g, &map) {
        let m = v.as_object().unwrap();
        assert!(
            m.len() >= 2 && m.values().all(|x| x.as_i64().unwrap() >= 7),
            "{v}"
        );
    }
}

#[test]
fn exclusive_minimum_in_both_dialects() {
    let d30 = doc30(json!({}));
    let g30 = Generator::new(&d30);
    let s30 = json!({"type": "integer", "minimum": 5, "exclusiveMinimum": true, "maximum": 7, "exclusiveMaximum": true});
    for v in values(&g30, &s30) {
        assert_eq!(v, json!(6));
    }
    let v = g30.generate(&s30, 0).unwrap();
    let ms = g30.mutations(&s30, &v);
    let below = ms
        .iter()
        .find(|m| m.kind == MutationKind::BelowMinimum)
        .unwrap();
    assert_eq!(
        (below.keyword, &below.value),
        ("exclusiveMinimum", &json!(5))
    );
    let above = ms
        .iter()
        .find(|m| m.kind == MutationKind::AboveMaximum)
        .unwrap();
    assert_eq!(
        (above.keyword, &above.value),
        ("exclusiveMaximum", &json!(7))
    );

    let d31 = doc31(json!({}));
    let g31 = Generator::new(&d31);
    let s31 = json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1});
    for v in values(&g31, &s31) {
        let x = v.as_f64().unwrap();
        assert!(x > 0.0 && x < 1.0, "{v}");
    }
    let e = g31
        .generate_at(
            &json!({"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2}),
            "/n",
            0,
        )
        .unwrap_err();
    assert_eq!(e.pointer, "/n");
}

#[test]
fn multiple_of_with_floats_and_integer_ranges() {
    let doc = doc31(json!({}));
    let g = Generator::new(&doc);
    for v in values(
        &g,
        &json!({"type": "number", "multipleOf": 0.01, "minimum": 0.5, "maximum": 0.6}),
    ) {
        let x = v.as_f64().unwrap();
        assert!((0.5..=0.6).contains(&x), "{v}");
    }
    for v in values(
        &g,
        &json!({"type": "integer", "multipleOf": 7, "minimum": -20, "maximum": -1}),
    ) {
        assert_eq!(v.as_i64().unwrap() % 7, 0, "{v}");
    }
    for v in values(
        &g,
        &json!({"type": "integer", "format": "int32", "minimum": 2147483640}),
    ) {
        assert!(v.as_i64().unwrap() <= i64::from(i32::MAX), "{v}");
    }
    let s = json!({"type": "integer", "format": "int32"});
    let v = g.generate(&s, 0).unwrap();
    let above = g
        .mutations(&s, &v)
        .into_iter()
        .find(|m| m.kind == MutationKind::AboveMaximum)
        .unwrap();
    assert_eq!(above.value, json!(2147483648i64));
    let e = g
        .generate_at(
            &json!({"type": "integer", "multipleOf": 10, "minimum": 1, "maximum": 9}),
            "/m",
            0,
        )
        .unwrap_err();
    assert!(e.reason.contains("no multiple of 10"), "{e}");
}

#[test]
fn unique_items_and_item_counts() {
    let doc = doc31(json!({}));
    let g = Generator::new(&doc);
    let s =
        json!({"type": "array", "items": {"enum": [1, 2, 3]}, "minItems": 3, "uniqueItems": true});
    for v in values(&g, &s) {
        let mut items: Vec<i64> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        items.sort_unstable();
        assert_eq!(items, vec![1, 2, 3]);
    }
    let e = g
        .generate_at(&json!({"type": "array", "items": {"enum": [1, 2]}, "minItems": 3, "uniqueItems": true}), "/u", 0)
        .unwrap_err();
    assert_eq!(e.pointer, "/u");
    assert!(e.reason.contains("uniqueItems"), "{e}");
    let tuple = json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string", "format": "date"}], "items": false, "minItems": 2});
    for v in values(&g, &tuple) {
        assert!(
            v[0].is_i64() && v[1].is_string() && v.as_array().unwrap().len() == 2,
            "{v}"
        );
    }
}

#[test]
fn nullable_in_3_0_and_type_arrays_in_3_1() {
    let d30 = doc30(json!({}));
    let g30 = Generator::new(&d30);
    let s = json!({"type": "string", "nullable": true, "maxLength": 4});
    let vs = values(&g30, &s);
    assert!(
        vs.iter().any(Value::is_null) && vs.iter().any(Value::is_string),
        "{vs:?}"
    );
    // null is allowed, so it is never offered as the wrong type.
    let v = g30.generate(&s, 0).unwrap();
    let wrong: Vec<Value> = g30
        .mutations(&s, &v)
        .into_iter()
        .filter(|m| m.kind == MutationKind::WrongType)
        .map(|m| m.value)
        .collect();
    assert!(
        !wrong.is_empty() && !wrong.contains(&Value::Null),
        "{wrong:?}"
    );
    // An enum without null keeps null out even when nullable (OpenAPI 3.0.3).
    for v in values(
        &g30,
        &json!({"type": "string", "nullable": true, "enum": ["a", "b"]}),
    ) {
        assert!(v.is_string(), "{v}");
    }
    let d31 = doc31(json!({}));
    let g31 = Generator::new(&d31);
    let vs = values(&g31, &json!({"type": ["integer", "null"], "minimum": 3}));
    assert!(
        vs.iter().any(Value::is_null) && vs.iter().any(|v| v.as_i64().is_some_and(|i| i >= 3)),
        "{vs:?}"
    );
}

#[test]
fn formats_validate() {
    let doc = doc31(json!({}));
    let g = Generator::new(&doc);
    for f in [
        "uuid",
        "date-time",
        "date",
        "time",
        "email",
        "uri",
        "url",
        "hostname",
        "ipv4",
        "ipv6",
        "byte",
        "binary",
        "uri-reference",
        "duration",
        "json-pointer",
        "regex",
    ] {
        let s = json!({"type": "string", "format": f});
        let vs = values(&g, &s);
        if f == "byte" {
            use base64::Engine as _;
            for v in &vs {
                base64::engine::general_purpose::STANDARD
                    .decode(v.as_str().unwrap())
                    .unwrap();
            }
        }
        let v = g.generate(&s, 0).unwrap();
        let broken = g
            .mutations(&s, &v)
            .into_iter()
            .find(|m| m.kind == MutationKind::FormatBroken);
        if !["byte", "binary", "url"].contains(&f) {
            let broken = broken.unwrap_or_else(|| panic!("no broken {f}"));
            assert!(g.validate(&s, &broken.value).is_err());
        }
    }
    for v in values(&g, &json!({"type": "integer", "format": "int64"})) {
        assert!(v.is_i64(), "{v}");
    }
    for v in values(&g, &json!({"type": "number", "format": "float"})) {
        assert!(v.is_number(), "{v}");
    }
}

#[test]
fn patterns_and_lengths() {
    let doc = doc31(json!({}));
    let g = Generator::new(&doc);
    let s = json!({"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"});
    for v in values(&g, &s) {
        let t = v.as_str().unwrap();
        assert!(t.len() == 8 && t.as_bytes()[3] == b'-', "{v}");
    }
    let v = g.generate(&s, 0).unwrap();
    let broken = g
        .mutations(&s, &v)
        .into_iter()
        .find(|m| m.kind == MutationKind::PatternBroken)
        .unwrap();
    assert_eq!(g.failures(&s, &broken.value).unwrap()[0].keyword, "pattern");
    let e = g
        .generate_at(&json!({"type": "string", "pattern": "(?<=a)b"}), "/p", 0)
        .unwrap_err();
    assert_eq!(e.pointer, "/p");
    let e = g
        .generate_at(
            &json!({"type": "string", "minLength": 5, "maxLength": 2}),
            "/l",
            0,
        )
        .unwrap_err();
    assert!(e.reason.contains("minLength 5"), "{e}");
}

#[test]
fn examples_first_when_they_validate() {
    let doc = doc30(json!({}));
    let g = Generator::new(&doc);
    let s = json!({"type": "string", "example": "octocat", "minLength": 2});
    assert_eq!(g.generate(&s, 3).unwrap(), json!("octocat"));
    let bad = json!({"type": "string", "example": "x", "minLength": 2, "default": "ok"});
    assert_eq!(g.generate(&bad, 3).unwrap(), json!("ok"));
    // The minimal variant is generated, not the example.
    assert_ne!(g.variants(&s, 3, 2).unwrap()[1], json!("octocat"));
}

#[test]
fn recursion_past_the_depth_limit() {
    let doc = doc31(json!({
        "Node": {"type": "object", "required": ["value"], "properties": {
            "value": {"type": "integer"}, "next": {"$ref": "#/components/schemas/Node"}}},
        "Loop": {"type": "object", "required": ["next"], "properties": {
            "next": {"$ref": "#/components/schemas/Loop"}}}
    }));
    let g = Generator::new(&doc);
    let v = g
        .generate(&json!({"$ref": "#/components/schemas/Node"}), 0)
        .unwrap();
    assert!(v["value"].is_i64());
    let e = g
        .generate(&json!({"$ref": "#/components/schemas/Loop"}), 0)
        .unwrap_err();
    assert_eq!(e.pointer, "/components/schemas/Loop");
    assert!(e.reason.starts_with("recursion"), "{e}");
}

#[test]
fn not_and_const() {
    let doc = doc31(json!({}));
    let g = Generator::new(&doc);
    for v in values(
        &g,
        &json!({"type": "integer", "minimum": 1, "maximum": 3, "not": {"const": 2}}),
    ) {
        assert_ne!(v, json!(2));
    }
    let s = json!({"const": "fixed"});
    assert_eq!(g.generate(&s, 0).unwrap(), json!("fixed"));
    let m = g.mutations(&s, &json!("fixed"));
    assert_eq!(m.len(), 1);
    assert_eq!(
        (m[0].kind, m[0].keyword),
        (MutationKind::ConstBroken, "const")
    );
}

#[test]
fn every_mutation_kind_fails_for_its_reason() {
    let doc = doc30(json!({
        "Order": {"type": "object", "additionalProperties": false,
            "required": ["id", "qty", "side", "note", "tags"],
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "qty": {"type": "integer", "minimum": 1, "maximum": 100},
                "side": {"type": "string", "enum": ["buy", "sell"]},
                "note": {"type": "string", "minLength": 2, "maxLength": 8, "pattern": "^[a-z]+$"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
                "version": {"type": "string", "enum": ["v1"]}
            }}
    }));
    let g = Generator::new(&doc);
    let s = json!({"$ref": "#/components/schemas/Order"});
    let v = g.generate(&s, 0).unwrap();
    let ms = g.mutations(&s, &v);
    let kinds: std::collections::HashSet<MutationKind> = ms.iter().map(|m| m.kind).collect();
    for k in [
        MutationKind::WrongType,
        MutationKind::RequiredMissing,
        MutationKind::BelowMinimum,
        MutationKind::AboveMaximum,
        MutationKind::TooShort,
        MutationKind::TooLong,
        MutationKind::TooFewItems,
        MutationKind::TooManyItems,
        MutationKind::NotInEnum,
        MutationKind::FormatBroken,
        MutationKind::PatternBroken,
        MutationKind::ExtraProperty,
    ] {
        assert!(kinds.contains(&k), "{k:?} missing from {kinds:?}");
    }
    for m in &ms {
        let fs = g.failures(&s, &m.value).unwrap();
        assert!(
            fs.iter()
                .any(|f| f.keyword == m.keyword && f.instance_path == m.instance_path),
            "{m:?}: {fs:?}"
        );
        assert!(m.pointer.starts_with("/components/schemas/Order"), "{m:?}");
    }
}

#[test]
fn shapes_for_parameter_serialisation() {
    let doc = doc31(json!({"Id": {"type": "string"}, "Obj": {"type": "object"}}));
    let g = Generator::new(&doc);
    assert_eq!(
        g.shape(&json!({"$ref": "#/components/schemas/Id"})),
        Shape::Scalar
    );
    assert_eq!(
        g.shape(&json!({"type": ["integer", "null"]})),
        Shape::Scalar
    );
    assert_eq!(
        g.shape(&json!({"type": "array", "items": {"type": "string"}})),
        Shape::Array
    );
    assert_eq!(
        g.shape(&json!({"$ref": "#/components/schemas/Obj"})),
        Shape::Object
    );
    assert_eq!(
        g.shape(&json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
        Shape::Scalar
    );
    assert_eq!(
        g.shape(&json!({"anyOf": [{"type": "string"}, {"$ref": "#/components/schemas/Obj"}]})),
        Shape::Mixed
    );
    assert_eq!(g.shape(&json!({})), Shape::Mixed);
}

#[test]
fn unsupported_is_an_error_not_a_value() {
    let doc = doc31(json!({}));
    let g = Generator::new(&doc);
    let e: Unsupported = g
        .generate_at(&json!({"$ref": "#/components/schemas/Missing"}), "/r", 0)
        .unwrap_err();
    assert_eq!(e.pointer, "/r");
    assert!(e.to_string().contains("does not resolve"), "{e}");
    let e = g
        .generate_at(
            &json!({"type": "object", "dependentSchemas": {"a": {}}}),
            "/d",
            0,
        )
        .unwrap_err();
    assert!(e.reason.contains("dependentSchemas"), "{e}");
}

#[test]
fn a_generator_can_be_shared_across_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Generator<'static>>();
}

#[test]
fn a_discriminator_names_the_branch() {
    let doc = doc30(json!({
        "Pet": {"type": "object", "required": ["petType"], "properties": {"petType": {"type": "string"}},
                "discriminator": {"propertyName": "petType", "mapping": {"dog": "#/components/schemas/Dog"}},
                "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}]},
        "Cat": {"type": "object", "required": ["petType", "lives"], "properties": {
            "petType": {"type": "string"}, "lives": {"type": "integer"}}, "additionalProperties": false},
        "Dog": {"type": "object", "required": ["petType", "bark"], "properties": {
            "petType": {"type": "string"}, "bark": {"type": "boolean"}}, "additionalProperties": false}
    }));
    let g = Generator::new(&doc);
    let s = json!({"$ref": "#/components/schemas/Pet"});
    let vs = g.variants(&s, 0, 6).unwrap();
    assert!(
        vs.iter()
            .any(|v| v["petType"] == "Cat" && v.get("lives").is_some()),
        "{vs:?}"
    );
    assert!(
        vs.iter()
            .any(|v| v["petType"] == "dog" && v.get("bark").is_some()),
        "{vs:?}"
    );
}

#[test]
fn a_value_the_generator_gets_wrong_is_reported_not_returned() {
    // `propertyNames` forbids the required property's name: no object satisfies both. The
    // generator does not reason about it; the check on its result catches it.
    let doc = doc31(json!({}));
    let g = Generator::new(&doc);
    let s = json!({"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}},
                   "propertyNames": {"pattern": "^b"}});
    let e = g.generate_at(&s, "/components/schemas/X", 0).unwrap_err();
    assert!(
        e.reason.starts_with("every value made failed validation"),
        "{e}"
    );
    assert!(
        e.pointer.starts_with("/components/schemas/X/propertyNames"),
        "{e}"
    );
    assert!(g.variants(&s, 0, 3).is_err());
    // Behind a reference, the pointer is the component's.
    let doc = doc31(json!({"X": s}));
    let g = Generator::new(&doc);
    let e = g
        .generate(&json!({"$ref": "#/components/schemas/X"}), 0)
        .unwrap_err();
    // (`propertyNames` is a keyword of X: the validator names X's node.)
    assert_eq!(e.pointer, "/components/schemas/X", "{e}");
}

#[test]
fn a_dropshot_null_response_is_null() {
    // propolis-server's "Null" response: `type: string` whose only enum value is null,
    // in a 3.0 document (see `an_enum_of_only_null_is_the_null_of_3_0`).
    let doc: Value = serde_json::from_str(include_str!(
        "../../../codegen/tests/corpus/propolis-server.json"
    ))
    .unwrap();
    let ptr = "/paths/~1instance~1disk~1{id}~1snapshot~1{snapshot_id}/post/responses/200/content/application~1json/schema";
    let g = Generator::new(&doc).with_direction(Direction::Response);
    let v = g.generate_at(doc.pointer(ptr).unwrap(), ptr, 0).unwrap();
    assert_eq!(v, Value::Null);
    assert!(g.validate(doc.pointer(ptr).unwrap(), &json!("x")).is_err());
}

/// 3.0 has no `null` type: a schema whose `enum` lists only `null` (dropshot's `()`) is
/// null, whatever its `type` says; in 3.1 the same schema admits nothing.
#[test]
fn an_enum_of_only_null_is_the_null_of_3_0() {
    let unit = json!({"title": "Null", "type": "string", "enum": [null]});
    let doc = doc30(json!({}));
    let g = Generator::new(&doc).with_direction(Direction::Response);
    for v in values(&g, &unit) {
        assert_eq!(v, Value::Null);
    }
    let doc = doc31(json!({}));
    let g = Generator::new(&doc);
    assert!(g.generate(&unit, 0).is_err());
    assert!(g.validate(&unit, &Value::Null).is_err());
}
