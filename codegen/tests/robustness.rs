//! Bad input gets an error, never a panic: the project spec, damaged in many
//! deterministic ways (a node removed, or replaced by a value of another type), must
//! either generate or fail with a spec error that names a JSON pointer.

use serde_json::Value;

/// Every JSON pointer of a value, in document order.
fn pointers(value: &Value, here: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let p = format!("{here}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(v, p, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let p = format!("{here}/{i}");
                out.push(p.clone());
                pointers(v, p, out);
            }
        }
        _ => {}
    }
}

/// Applies mutation `kind` at `pointer`.
fn mutate(doc: &Value, pointer: &str, kind: usize) -> Value {
    let mut doc = doc.clone();
    let (parent, last) = pointer.rsplit_once('/').unwrap();
    let last = last.replace("~1", "/").replace("~0", "~");
    let replacement = match kind {
        1 => Some(Value::from(42)),
        2 => Some(Value::from("x")),
        3 => Some(Value::Array(Vec::new())),
        4 => Some(Value::Object(Default::default())),
        _ => None,
    };
    match doc.pointer_mut(parent) {
        Some(Value::Object(map)) => match replacement {
            Some(v) => {
                map.insert(last, v);
            }
            None => {
                map.shift_remove(&last);
            }
        },
        Some(Value::Array(items)) => {
            let i: usize = last.parse().unwrap();
            match replacement {
                Some(v) => items[i] = v,
                None => {
                    items.remove(i);
                }
            }
        }
        _ => {}
    }
    doc
}

#[test]
fn damaged_specs_never_panic() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/openapi.yaml"))
            .unwrap();
    let doc: Value = serde_yaml::from_str(&text).unwrap();
    let mut all = Vec::new();
    pointers(&doc, String::new(), &mut all);
    // A fixed stride through the nodes and mutation kinds: deterministic and spread
    // over the whole document, bounded in count.
    let cases = 60.min(all.len());
    let stride = all.len() / cases;
    let mut refused = 0;
    for case in 0..cases {
        let pointer = &all[case * stride];
        let kind = case % 5;
        let damaged = serde_json::to_string_pretty(&mutate(&doc, pointer, kind)).unwrap();
        match codegen::generate_str("damaged.json", &damaged, "damaged.json") {
            // The four files every crate has, then the runtime files its spec needs.
            Ok(generated) => {
                let names: Vec<&str> = generated.files.iter().map(|f| f.path.as_str()).collect();
                assert_eq!(names[..4], ["lib.rs", "models.rs", "client.rs", "error.rs"]);
            }
            Err(codegen::Error::Spec(e)) => {
                refused += 1;
                assert!(!e.message.is_empty(), "{pointer} ({kind}): empty message");
            }
            Err(codegen::Error::Specs(es)) => {
                refused += 1;
                assert!(
                    es.iter().all(|e| !e.message.is_empty()),
                    "{pointer} ({kind}): empty message"
                );
            }
            Err(other) => panic!("{pointer} ({kind}): unexpected error kind: {other}"),
        }
    }
    assert!(refused > 0, "some damage must be refused");
}
