//! Which declared path a request's path is, and the raw text of each path parameter.
//!
//! A template is split into `/`-separated segments. A segment is literal, a whole
//! parameter (`{id}`), or literal text around parameters (`{name}.json`, matched with a
//! regular expression). Among the templates that match, the one whose segments are most
//! literal from the left wins: `/flows/filter` before `/flows/{id}`, and
//! `/files/{name}.json` before `/files/{name}`. A trailing `/` is significant only where
//! the spec declares both forms; otherwise `/flows` and `/flows/` are the same path.

use regex::Regex;

/// One segment of a path template.
#[derive(Debug)]
enum Segment {
    Literal(String),
    Param(String),
    /// Literal text around parameters: the names in order and the whole-segment regex.
    Mixed(Vec<String>, Regex),
}

impl Segment {
    /// Ranks a match: a literal is most specific.
    fn rank(&self) -> u8 {
        match self {
            Segment::Literal(_) => 2,
            Segment::Mixed(..) => 1,
            Segment::Param(_) => 0,
        }
    }
}

/// Path parameter names and their raw (percent-encoded) texts, in path order.
pub(crate) type PathParams = Vec<(String, String)>;

/// A declared path template.
#[derive(Debug)]
pub(crate) struct Template {
    /// As written in the spec.
    pub text: String,
    segments: Vec<Segment>,
    trailing_slash: bool,
}

impl Template {
    /// Parses `text` (`/flows/{id}`).
    pub fn parse(text: &str) -> Template {
        let trimmed = text.trim_end_matches('/');
        let segments = trimmed.split('/').skip(1).map(segment).collect();
        Template {
            text: text.to_owned(),
            segments,
            trailing_slash: text.len() > 1 && text.ends_with('/'),
        }
    }

    /// The last segment's parameter name when the last segment is a whole parameter.
    pub fn last_param(&self) -> Option<&str> {
        match self.segments.last() {
            Some(Segment::Param(name)) => Some(name),
            _ => None,
        }
    }

    /// The template with its last segment removed, trailing `/` dropped.
    pub fn parent_text(&self) -> Option<String> {
        let trimmed = self.text.trim_end_matches('/');
        trimmed.rsplit_once('/').map(|(p, _)| p.to_owned())
    }

    /// The raw (still percent-encoded) parameter texts when the path of `parts` (its
    /// segments, [`segments`]) matches, with the match's rank (more literal segments
    /// from the left rank higher).
    fn matches(&self, parts: &[&str]) -> Option<(Vec<u8>, PathParams)> {
        if parts.len() != self.segments.len() {
            return None;
        }
        let mut params = Vec::new();
        let mut rank = Vec::new();
        for (seg, part) in self.segments.iter().zip(parts) {
            match seg {
                Segment::Literal(l) if l == part => {}
                Segment::Literal(_) => return None,
                Segment::Param(name) if !part.is_empty() => {
                    params.push((name.clone(), (*part).to_owned()));
                }
                Segment::Param(_) => return None,
                Segment::Mixed(names, re) => {
                    let caps = re.captures(part)?;
                    for (i, name) in names.iter().enumerate() {
                        params.push((name.clone(), caps[i + 1].to_owned()));
                    }
                }
            }
            rank.push(seg.rank());
        }
        Some((rank, params))
    }
}

/// The `/`-separated segments of a request path, trailing `/`s dropped (none for `/`).
fn segments(path: &str) -> Vec<&str> {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return Vec::new();
    }
    trimmed.split('/').skip(1).collect()
}

fn segment(text: &str) -> Segment {
    if !text.contains('{') {
        return Segment::Literal(text.to_owned());
    }
    if text.starts_with('{') && text.ends_with('}') && text.matches('{').count() == 1 {
        return Segment::Param(text[1..text.len() - 1].to_owned());
    }
    let mut names = Vec::new();
    let mut pattern = String::from("^");
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        pattern.push_str(&regex::escape(&rest[..open]));
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c);
        names.push(rest[open + 1..close].to_owned());
        pattern.push_str("(.+?)");
        rest = rest.get(close + 1..).unwrap_or("");
    }
    pattern.push_str(&regex::escape(rest));
    pattern.push('$');
    match Regex::new(&pattern) {
        Ok(re) => Segment::Mixed(names, re),
        Err(_) => Segment::Literal(text.to_owned()),
    }
}

/// The index of the template `path` names, with its parameter texts: the best-ranked
/// match, preferring the one whose trailing `/` agrees with the request's when the spec
/// declares both forms.
pub(crate) fn find(templates: &[Template], path: &str) -> Option<(usize, PathParams)> {
    let slash = path.len() > 1 && path.ends_with('/');
    // Split once for every template: most are refused on the count or the first literal.
    let parts = segments(path);
    templates
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.matches(&parts).map(|(rank, params)| (i, rank, params)))
        .max_by(|a, b| {
            let agree = |i: usize| templates[i].trailing_slash == slash;
            a.1.cmp(&b.1)
                .then(agree(a.0).cmp(&agree(b.0)))
                .then(b.0.cmp(&a.0))
        })
        .map(|(i, _, params)| (i, params))
}

/// The path part of the first `servers` URL, its variables at their defaults, without a
/// trailing `/` (`""` when there is none, or it is `/`).
pub(crate) fn base_path(doc: &serde_json::Value) -> String {
    let Some(server) = doc.pointer("/servers/0") else {
        return String::new();
    };
    let mut url = server
        .get("url")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_owned();
    for (name, var) in server
        .get("variables")
        .and_then(serde_json::Value::as_object)
        .into_iter()
        .flatten()
    {
        let default = var
            .get("default")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        url = url.replace(&format!("{{{name}}}"), default);
    }
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |i| &rest[i..]),
        None => url.as_str(),
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    path.trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn templates(list: &[&str]) -> Vec<Template> {
        list.iter().map(|t| Template::parse(t)).collect()
    }

    #[test]
    fn literal_segments_win_over_parameters() {
        let t = templates(&["/flows/{id}", "/flows/filter", "/flows/"]);
        assert_eq!(find(&t, "/flows/filter").unwrap().0, 1);
        let (i, params) = find(&t, "/flows/abc").unwrap();
        assert_eq!((i, params), (0, vec![("id".into(), "abc".into())]));
        assert_eq!(find(&t, "/flows").unwrap().0, 2);
        assert!(find(&t, "/flows/a/b").is_none());
    }

    #[test]
    fn mixed_segments_capture_each_parameter() {
        let t = templates(&["/files/{name}.{ext}", "/files/{name}"]);
        let (i, params) = find(&t, "/files/report.tar.gz").unwrap();
        assert_eq!(i, 0);
        assert_eq!(params[0], ("name".into(), "report".into()));
        assert_eq!(params[1], ("ext".into(), "tar.gz".into()));
    }

    #[test]
    fn the_base_path_comes_from_the_first_server() {
        let doc = |url: &str| serde_json::json!({"servers": [{"url": url, "variables": {"v": {"default": "v2"}}}]});
        assert_eq!(base_path(&doc("/api")), "/api");
        assert_eq!(base_path(&doc("https://x.example/{v}/")), "/v2");
        assert_eq!(base_path(&doc("https://x.example")), "");
        assert_eq!(base_path(&serde_json::json!({})), "");
    }
}
