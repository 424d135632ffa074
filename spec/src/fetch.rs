//! What reads a `$ref` to a URL for spec-model's bundler ([`crate::bundle::Fetch`]), for
//! the command lines' `--url-refs` (the generator's, the diff's and the harness's), behind
//! the `fetch` feature so that the reader opens no connection unless asked. Only `http`
//! and `https` (the bundler checks), 30 seconds a document, at most [`MAX_BYTES`] of
//! text, and the status must be a success. No header is sent beyond reqwest's own: a
//! harness's credentials are its target's, and the URL may be anyone's.

use std::time::Duration;

/// The largest document fetched: a spec, not a download.
const MAX_BYTES: usize = 64 << 20;

/// Fetches one document's text, on a thread of its own: the bundler is synchronous, and
/// a caller may already be inside an async runtime, where another cannot be started.
pub fn url(url: &url::Url) -> Result<String, String> {
    let url = url.clone();
    std::thread::spawn(move || fetch(&url))
        .join()
        .unwrap_or_else(|_| Err("the fetch panicked".to_owned()))
}

fn fetch(url: &url::Url) -> Result<String, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| e.to_string())?;
        let mut answer = client
            .get(url.as_str())
            .send()
            .await
            .map_err(|e| e.without_url().to_string())?;
        if !answer.status().is_success() {
            return Err(format!("status {}", answer.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|e| e.without_url().to_string())?
        {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_BYTES {
                return Err(format!("more than {} MiB", MAX_BYTES >> 20));
            }
        }
        String::from_utf8(body).map_err(|_| "not UTF-8 text".to_owned())
    })
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    /// One answer from a server on an OS-chosen loopback port.
    fn serve_once(answer: &'static str) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = socket.read(&mut buf);
            socket.write_all(answer.as_bytes()).unwrap();
        });
        format!("http://{addr}/schemas/pet.yaml")
    }

    #[test]
    fn a_document_is_fetched_and_a_failed_status_is_an_error() {
        let ok = serve_once(
            "HTTP/1.1 200 OK\r\ncontent-length: 13\r\nconnection: close\r\n\r\ntype: string\n",
        );
        assert_eq!(super::url(&ok.parse().unwrap()).unwrap(), "type: string\n");
        let gone =
            serve_once("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        let err = super::url(&gone.parse().unwrap()).unwrap_err();
        assert!(err.contains("404"), "{err}");
    }
}
