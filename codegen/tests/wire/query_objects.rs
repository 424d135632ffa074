//! The wire form of object query parameters, read off a loopback socket. Copied into the
//! crate generated from `tests/specs/query_objects.yaml` by `tests/compile.rs`.
use std::collections::BTreeMap;
use std::io::{Read, Write};

use gen_query_objects::models::{Filter, Page, Point};

/// Answers `n` connections with 204 and returns each request line.
fn serve(n: usize) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let (base, heads) = serve_heads(n);
    let lines = std::thread::spawn(move || {
        heads
            .join()
            .unwrap()
            .iter()
            .map(|head| head.lines().next().unwrap_or_default().to_owned())
            .collect()
    });
    (base, lines)
}

/// Answers `n` connections with 204 and returns each request's head.
fn serve_heads(n: usize) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        (0..n)
            .map(|_| {
                let (mut s, _) = listener.accept().unwrap();
                let mut buf = [0u8; 8192];
                let len = s.read(&mut buf).unwrap();
                s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n").unwrap();
                String::from_utf8_lossy(&buf[..len]).into_owned()
            })
            .collect()
    });
    (base, handle)
}

#[test]
fn objects_go_on_the_wire_as_their_style_says() {
    let (base, server) = serve(2);
    let client = gen_query_objects::client::Client::new(base).unwrap();
    let filter = Filter {
        role: Some("admin".into()),
        first_name: Some("Alex B&C".into()),
        active: Some(true),
        tags: Some(vec!["a".into(), "b,c".into()]),
    };
    let point = Point { x: 1, y: -2 };
    let page = Page { size: Some(10), after: None };
    let labels = BTreeMap::from([("k".to_owned(), "v w".to_owned()), ("[x]".to_owned(), "=".to_owned())]);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        client.search(&filter, Some(&point), Some(&page), Some(&labels)).await.unwrap();
        // Unset fields are left out; an empty object adds nothing.
        client.search(&Filter::default(), None, Some(&Page::default()), None).await.unwrap();
    });
    let lines = server.join().unwrap();
    assert_eq!(
        lines,
        [
            // form, exploded: one pair per property, a list's items each under the key;
            // form, not exploded: alternating keys and values; deepObject: name[key].
            // Keys, values and names percent-encoded, brackets and separators literal.
            "GET /search?active=true&first%20name=Alex%20B%26C&role=admin&tags=a&tags=b%2Cc\
             &point=x,1,y,-2&page[size]=10&labels[%5Bx%5D]=%3D&labels[k]=v%20w HTTP/1.1",
            "GET /search HTTP/1.1",
        ]
    );
}

/// A `deepObject` parameter that may be an object or a number: the object as
/// `name[key]=value` pairs, the number as `name=value`.
#[test]
fn a_deep_object_union_goes_as_its_value_is() {
    use gen_query_objects::models::{ListEventsCreated, ListEventsCreatedObject};
    let (base, server) = serve(3);
    let client = gen_query_objects::client::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let range = ListEventsCreated::Object(ListEventsCreatedObject { gt: Some(5), lt: None });
    rt.block_on(async {
        client.list_events(Some(&range)).await.unwrap();
        client.list_events(Some(&ListEventsCreated::Integer(1_700_000_000))).await.unwrap();
        client.list_events(None).await.unwrap();
    });
    assert_eq!(
        server.join().unwrap(),
        [
            "GET /events?created[gt]=5 HTTP/1.1",
            "GET /events?created=1700000000 HTTP/1.1",
            "GET /events HTTP/1.1",
        ]
    );
}

/// A path or header parameter described by `content: application/json` is its JSON text:
/// percent-encoded as a path segment, as it is in a header.
#[test]
fn json_text_goes_in_the_path_and_in_a_header() {
    use gen_query_objects::models::{GetSliceKey, GetSliceXWindow};
    let (base, server) = serve_heads(1);
    let client = gen_query_objects::client::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let key = GetSliceKey { a: Some(1), b: Some("x/y z".into()) };
        let window = GetSliceXWindow { from: Some(2) };
        client.get_slice(&key, Some(&window)).await.unwrap();
    });
    let head = server.join().unwrap().remove(0);
    let mut lines = head.lines();
    assert_eq!(
        lines.next().unwrap(),
        "GET /slices/%7B%22a%22%3A1%2C%22b%22%3A%22x%2Fy%20z%22%7D HTTP/1.1"
    );
    assert!(
        lines.any(|l| l.eq_ignore_ascii_case(r#"x-window: {"from":2}"#)),
        "{head}"
    );
}
