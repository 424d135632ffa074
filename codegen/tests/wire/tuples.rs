//! Tuples from `prefixItems`, copied into the crate generated from
//! `tests/specs/tuples.yaml` by `tests/compile.rs`: each decodes from and encodes to the
//! same JSON array, and a list of another length is refused rather than misread.

use gen_tuples::models::{Graph, Point};

#[test]
fn tuples_round_trip_as_json_arrays() {
    let value = serde_json::json!({
        "edges": [["a", 1], ["b", 2]],
        "labelled": [{"x": 1.5, "y": 2.0}, null],
        "single": [7],
        "open": [1, "x", "y"],
        "nested": ["inner", {"edges": [["c", 3]]}]
    });
    let graph: Graph = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(graph.edges, vec![("a".to_owned(), 1), ("b".to_owned(), 2)]);
    let (point, label) = graph.labelled.clone().unwrap();
    assert_eq!(point, Point::builder().x(1.5).y(2.0).build());
    assert_eq!(label, None);
    assert_eq!(graph.single, Some((7,)));
    let (name, inner) = graph.nested.as_deref().unwrap();
    assert_eq!(name, "inner");
    assert_eq!(inner.edges, vec![("c".to_owned(), 3)]);
    assert_eq!(serde_json::to_value(&graph).unwrap(), value);
}

/// A request body built in Rust goes out as arrays.
#[test]
fn a_tuple_is_built_and_sent_as_an_array() {
    let graph = Graph::new(vec![("a".to_owned(), 1)])
        .with_labelled((Point::builder().x(0.0).y(1.0).build(), Some("origin".to_owned())));
    assert_eq!(
        serde_json::to_value(&graph).unwrap(),
        serde_json::json!({"edges": [["a", 1]], "labelled": [{"x": 0.0, "y": 1.0}, "origin"]})
    );
}

/// The spec fixes each tuple's length: a shorter or longer list is a decode error, not
/// a tuple with an item dropped or made up.
#[test]
fn a_list_of_another_length_is_refused() {
    for edges in [serde_json::json!([["a"]]), serde_json::json!([["a", 1, 2]])] {
        let err = serde_json::from_value::<Graph>(serde_json::json!({ "edges": edges }));
        assert!(err.is_err(), "{edges} decoded");
    }
}
