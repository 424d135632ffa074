//! `label` and `matrix` path parameters and exploded header lists on the wire, checked
//! against the RFC 6570 examples of the OpenAPI style table (`color` = `blue` or
//! `[blue, black, brown]`). Copied into the crate generated from
//! `tests/specs/path_styles.yaml` by `tests/compile.rs`.
use std::io::{Read, Write};

/// Answers `n` connections with 204 and returns each request's head.
fn serve(n: usize) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        (0..n)
            .map(|_| {
                let (mut s, _) = listener.accept().unwrap();
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    let len = s.read(&mut buf).unwrap();
                    assert!(len > 0, "connection closed before the end of the head");
                    head.extend_from_slice(&buf[..len]);
                }
                s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
                    .unwrap();
                String::from_utf8(head).unwrap()
            })
            .collect()
    });
    (base, handle)
}

#[test]
fn label_and_matrix_paths_follow_rfc_6570() {
    let (base, server) = serve(10);
    let client = gen_path_styles::Client::new(base).unwrap();
    let colors = ["blue", "black", "brown"];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        client.label("blue").await.unwrap();
        client.label_number(5).await.unwrap();
        client.label_list(&colors).await.unwrap();
        client.label_explode(&colors).await.unwrap();
        client.matrix("blue").await.unwrap();
        client.matrix("").await.unwrap();
        client.matrix_list(&colors).await.unwrap();
        client.matrix_explode(&colors).await.unwrap();
        // Values are percent-encoded; the style's own separators are not.
        client.matrix_explode(&["a;b", "c d"]).await.unwrap();
        client.simple_explode(&colors, &colors, &colors).await.unwrap();
    });
    let heads = server.join().unwrap();
    let lines: Vec<&str> = heads.iter().map(|h| h.lines().next().unwrap()).collect();
    assert_eq!(
        lines,
        [
            "GET /label/.blue HTTP/1.1",
            "GET /label-number/.5 HTTP/1.1",
            "GET /label-list/.blue,black,brown HTTP/1.1",
            "GET /label-explode/.blue.black.brown HTTP/1.1",
            "GET /matrix/;color=blue HTTP/1.1",
            "GET /matrix/;color HTTP/1.1",
            "GET /matrix-list/;color=blue,black,brown HTTP/1.1",
            "GET /matrix-explode/;color=blue;color=black;color=brown HTTP/1.1",
            "GET /matrix-explode/;color=a%3Bb;color=c%20d HTTP/1.1",
            "GET /simple-explode/blue,black,brown HTTP/1.1",
        ]
    );
    // `simple` lists are `blue,black,brown` whether exploded or not.
    let last = heads.last().unwrap().to_ascii_lowercase();
    assert!(last.contains("\r\nx-color: blue,black,brown\r\n"), "{last}");
    assert!(last.contains("\r\nx-shade: blue,black,brown\r\n"), "{last}");
}

#[test]
fn a_dot_segment_is_refused_before_sending() {
    use gen_path_styles::{Constraint, Error};
    // Nothing listens: a request that were sent would fail with `Error::Transport`.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let client = gen_path_styles::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        // `..` would reach `/files/{version}`, `.` would drop the segment: both refused,
        // naming the parameter (URL parsing removes `%2E%2E` too, so encoding cannot help).
        for (name, version, field) in [("..", "1", "name"), ("a", ".", "version")] {
            match client.file_version(name, version).await {
                Err(Error::Constraint(v)) => {
                    assert_eq!(v.fields, [field]);
                    assert_eq!(v.constraint, Constraint::DotSegment);
                    assert!(v.to_string().contains("`..`"), "{v}");
                }
                other => panic!("{name}/{version}: expected a DotSegment refusal, got {other:?}"),
            }
        }
        // `label("")` is `/label/.`: refused as well.
        assert!(matches!(
            client.label("").await,
            Err(Error::Constraint(v)) if v.fields == ["color"]
        ));
        // Dots inside a segment are ordinary characters: sent (and fail to connect here).
        for value in ["...", ".x", "a..b"] {
            let error = client.file_version(value, "1").await.unwrap_err();
            assert!(matches!(error, Error::Transport(_)), "{value}: {error:?}");
        }
    });
}

/// Objects in a path or header, in each style, against the OpenAPI style table's example
/// (`R=100, G=200, B=150`; properties in the order of their JSON form, so `B, G, R`), and a
/// map whose keys and values need percent-encoding in a path but are sent as they are
/// in a header.
#[test]
fn objects_in_a_path_or_header_follow_rfc_6570() {
    let (base, server) = serve(7);
    let client = gen_path_styles::Client::new(base).unwrap();
    let rgb = gen_path_styles::models::Rgb {
        r: 100,
        g: 200,
        b: 150,
    };
    let tags: gen_path_styles::models::Tags =
        [("a b".to_string(), "x;y".to_string()), ("k".to_string(), "v".to_string())].into();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        client
            .object_simple(&rgb, &rgb, &rgb, Some(&tags))
            .await
            .unwrap();
        client.object_simple_explode(&rgb).await.unwrap();
        client.object_label(&rgb).await.unwrap();
        client.object_label_explode(&rgb).await.unwrap();
        client.object_matrix(&rgb).await.unwrap();
        client.object_matrix_explode(&tags).await.unwrap();
        // An object with no property set expands to nothing: no header at all.
        let empty = gen_path_styles::models::Tags::new();
        client
            .object_simple(&rgb, &rgb, &rgb, Some(&empty))
            .await
            .unwrap();
    });
    let heads = server.join().unwrap();
    let lines: Vec<&str> = heads.iter().map(|h| h.lines().next().unwrap()).collect();
    assert_eq!(
        lines,
        [
            "GET /object/B,150,G,200,R,100 HTTP/1.1",
            "GET /object-explode/B=150,G=200,R=100 HTTP/1.1",
            "GET /object-label/.B,150,G,200,R,100 HTTP/1.1",
            "GET /object-label-explode/.B=150.G=200.R=100 HTTP/1.1",
            "GET /object-matrix/;rgb=B,150,G,200,R,100 HTTP/1.1",
            "GET /object-matrix-explode/;a%20b=x%3By;k=v HTTP/1.1",
            "GET /object/B,150,G,200,R,100 HTTP/1.1",
        ]
    );
    assert!(!heads[6].to_ascii_lowercase().contains("\r\nx-tags:"), "{}", heads[6]);
    let first = heads[0].to_ascii_lowercase();
    assert!(first.contains("\r\nx-rgb: b,150,g,200,r,100\r\n"), "{first}");
    assert!(first.contains("\r\nx-rgb-exploded: b=150,g=200,r=100\r\n"), "{first}");
    assert!(first.contains("\r\nx-tags: a b,x;y,k,v\r\n"), "{first}");
}
