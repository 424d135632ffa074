//! Answer bodies that are not text, shown as what they are instead of as their bytes. A
//! zip, an image or any other body written raw to a terminal or into a report carries NUL
//! and control bytes (a terminal may act on escape sequences; XML cannot hold NUL), so
//! every place that shows an answer body asks [`shown`] first.
//!
//! The rule, for any spec and any answer: a body is text when its bytes (the part that is
//! shown) are UTF-8 and hold no control character other than tab, line feed and carriage
//! return. Anything else — whatever its media type says — is shown as
//! `<MEDIA TYPE, N bytes: HEX …>`: the media type the answer named (or `no content-type`),
//! its size, and the hex of its first [`HEX_BYTES`] bytes. A text body under a binary
//! media type (an `application/octet-stream` holding plain ASCII) is still text: its bytes
//! are what can harm a terminal, not its label. The hex excerpt is left out when the body
//! holds a secret of the run, so that no credential is shown in another encoding.

use crate::redact::Secrets;

/// How many of a binary body's first bytes are shown, in hex.
pub const HEX_BYTES: usize = 16;

/// The description of `body` when it is not text (see the module's rule), else `None`:
/// the caller shows the text as usual. `media_type` is the answer's, without parameters;
/// `checked` is how many of the first bytes are looked at (the caller shows no more).
pub fn shown(
    media_type: Option<&str>,
    body: &[u8],
    checked: usize,
    secrets: &Secrets,
) -> Option<String> {
    let head = &body[..body.len().min(checked)];
    if is_text(head) {
        return None;
    }
    let media = media_type
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .unwrap_or("no content-type");
    // A media type is a token: anything else in it is shown escaped.
    let media: String = media.escape_debug().collect();
    let size = thousands(body.len());
    let lossy = String::from_utf8_lossy(body);
    let holds_secret = secrets.redact(&lossy) != lossy;
    if holds_secret || body.is_empty() {
        let why = if holds_secret {
            ": excerpt left out, it holds a secret of the run"
        } else {
            ""
        };
        return Some(format!("<{media}, {size} bytes{why}>"));
    }
    let hex: Vec<String> = body
        .iter()
        .take(HEX_BYTES)
        .map(|b| format!("{b:02x}"))
        .collect();
    let more = if body.len() > HEX_BYTES { " …" } else { "" };
    Some(format!("<{media}, {size} bytes: {}{more}>", hex.join(" ")))
}

/// Whether `bytes` are UTF-8 text without control characters other than tab, LF and CR.
/// A multi-byte character cut at the end (the caller shows a prefix) does not make them
/// binary.
pub fn is_text(bytes: &[u8]) -> bool {
    let valid = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) if e.error_len().is_none() => {
            // Only an incomplete character at the very end.
            match std::str::from_utf8(&bytes[..e.valid_up_to()]) {
                Ok(s) => s,
                Err(_) => return false,
            }
        }
        Err(_) => return false,
    };
    !valid
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> Secrets {
        let mut s = Secrets::new(Default::default());
        s.add("tok-1234567890", "$TOKEN");
        s
    }

    #[test]
    fn a_zip_is_its_media_type_size_and_first_bytes() {
        let mut zip = b"PK\x03\x04\x14\x00\x00\x00\x08\x00".to_vec();
        zip.extend(std::iter::repeat_n(0u8, 1224));
        let text = shown(Some("application/zip"), &zip, 4096, &secrets()).unwrap();
        assert_eq!(
            text,
            "<application/zip, 1,234 bytes: 50 4b 03 04 14 00 00 00 08 00 00 00 00 00 00 00 …>"
        );
        assert!(!text.contains('\0'));
    }

    #[test]
    fn text_stays_text_whatever_its_label_and_control_bytes_do_not() {
        let s = secrets();
        assert_eq!(
            shown(Some("text/plain"), "héllo\n\tworld\r\n".as_bytes(), 100, &s),
            None
        );
        assert_eq!(
            shown(Some("application/octet-stream"), b"plain", 100, &s),
            None
        );
        // An escape sequence is not text a terminal should be handed.
        assert_eq!(
            shown(Some("text/plain"), b"\x1b[2Jcleared", 100, &s).as_deref(),
            Some("<text/plain, 11 bytes: 1b 5b 32 4a 63 6c 65 61 72 65 64>")
        );
        assert_eq!(
            shown(None, b"\xff\xfe", 100, &s).as_deref(),
            Some("<no content-type, 2 bytes: ff fe>")
        );
        // A character cut by the shown prefix is not a sign of binary.
        let e = "é".as_bytes();
        assert_eq!(shown(Some("text/plain"), &[b'a', e[0], e[1]], 2, &s), None);
    }

    #[test]
    fn a_binary_body_holding_a_secret_shows_no_excerpt() {
        let mut body = b"\x00\x01tok-1234567890".to_vec();
        body.push(0);
        let text = shown(Some("application/octet-stream"), &body, 100, &secrets()).unwrap();
        assert_eq!(
            text,
            "<application/octet-stream, 17 bytes: excerpt left out, it holds a secret of the run>"
        );
    }

    #[test]
    fn sizes_read_in_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
