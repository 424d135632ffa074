//! The wire form of every list encoding, read off a loopback socket (a snapshot shows the
//! code, not what `reqwest` makes of it). Copied into the crate generated from
//! `tests/specs/list_encodings.yaml` by `tests/compile.rs`.
use std::io::{Read, Write};

/// Answers `n` connections with 204 and returns each request line.
fn serve(n: usize) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        (0..n)
            .map(|_| {
                let (mut s, _) = listener.accept().unwrap();
                let mut buf = [0u8; 8192];
                let len = s.read(&mut buf).unwrap();
                s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n").unwrap();
                let head = String::from_utf8_lossy(&buf[..len]).into_owned();
                head.lines().next().unwrap_or_default().to_owned()
            })
            .collect()
    });
    (base, handle)
}

#[test]
fn lists_go_on_the_wire_as_their_style_says() {
    let (base, server) = serve(2);
    let client = gen_list_encodings::client::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        client
            .get_items(&[1, 2], &["a b", "c"], Some(&["x,y", "z"]), Some(&[3, 4]), &["d[0]", "e"], None)
            .await
            .unwrap();
        client.get_items(&[5], &["n"], Some(&["one"]), None, &[], None).await.unwrap();
    });
    let lines = server.join().unwrap();
    assert_eq!(
        lines,
        [
            "GET /items/1,2?tags=x%2Cy,z&codes=3|4&expand[]=d%5B0%5D&expand[]=e&names=a+b&names=c HTTP/1.1",
            "GET /items/5?tags=one&names=n HTTP/1.1",
        ]
    );
}

/// A list of objects goes as one JSON text, percent-encoded like any query value; an
/// unset optional one not at all.
#[test]
fn lists_of_objects_go_as_json_text() {
    use gen_list_encodings::models::Filter;
    let (base, server) = serve(2);
    let client = gen_list_encodings::client::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let filters = [
        Filter { name: "state".to_owned(), values: Some(vec!["a&b".to_owned()]) },
        Filter { name: "x".to_owned(), values: None },
    ];
    rt.block_on(async {
        client.get_filtered(&filters, None).await.unwrap();
        client.get_filtered(&[], Some(&filters[1..])).await.unwrap();
    });
    let lines = server.join().unwrap();
    let query = |line: &str| {
        let target = line.split(' ').nth(1).unwrap().to_owned();
        let (_, query) = target.split_once('?').unwrap();
        url_pairs(query)
    };
    assert_eq!(
        query(&lines[0]),
        [("filters".to_owned(), r#"[{"name":"state","values":["a&b"]},{"name":"x"}]"#.to_owned())]
    );
    assert_eq!(
        query(&lines[1]),
        [
            ("filters".to_owned(), "[]".to_owned()),
            ("sorts".to_owned(), r#"[{"name":"x"}]"#.to_owned()),
        ]
    );
}

/// `application/x-www-form-urlencoded` pairs, decoded.
fn url_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap();
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let text = text.replace('+', " ");
    percent_encoding::percent_decode_str(&text).decode_utf8().unwrap().into_owned()
}
