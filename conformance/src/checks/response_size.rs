//! `response_size`: every answer's body stays within `--check-option
//! max-response-size=BYTES`, a bound the run's owner sets (a list endpoint that forgot to
//! page, an error page that dumps a stack trace).

use std::any::Any;
use std::sync::Arc;

use super::{Answer, CheckOptions, Def, Finding, RunFacts, Setting};
use crate::registry::{Check, Family, row};
use crate::spec::Level;
use crate::transport::Response;

/// Its registry row, judge and setting.
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::ResponseSize,
        "response_size",
        Family::SchemaStatus,
        Level::Should,
        "every answer's body is at most --check-option max-response-size=BYTES (judged only when it is given)",
        "fixed: SHOULD, the spec states no size bound: a large answer is a quality breach the run's owner sets, not a broken contract (--strict makes it fail)",
    )],
    derive: None,
    lacks,
    judge: Some(judge),
    settings: &[MAX_RESPONSE_SIZE],
};

/// The most bytes an answer's body may have, as received (the transport asks for no
/// compression and decodes none). A body over the transport's own cap
/// ([`crate::transport::MAX_BODY`]) is never read: that answer fails `not_a_server_error`
/// instead, whatever this says.
pub(crate) const MAX_RESPONSE_SIZE: Setting = Setting {
    name: "max-response-size",
    value: "BYTES",
    parse: bytes,
};

fn bytes(text: &str) -> Result<Arc<dyn Any + Send + Sync>, String> {
    match text.parse::<u64>() {
        Ok(n) => Ok(Arc::new(n)),
        Err(_) => Err(format!("`{text}` is not a whole number of bytes")),
    }
}

fn lacks(_: Check, facts: &RunFacts<'_>) -> Option<String> {
    (!facts.options.has(&MAX_RESPONSE_SIZE))
        .then(|| "judged only with --check-option max-response-size=BYTES".into())
}

fn judge(a: &Answer<'_>, options: &CheckOptions) -> Vec<Finding> {
    options
        .get::<u64>(&MAX_RESPONSE_SIZE)
        .map(|limit| response_size(*limit, a.resp))
        .into_iter()
        .collect()
}

/// The `response_size` verdict of an answer whose body may have at most `limit` bytes.
fn response_size(limit: u64, resp: &Response) -> Finding {
    let size = resp.body.len() as u64;
    Finding::new(
        Check::ResponseSize,
        Check::ResponseSize.entry().level,
        format!("a body of at most {limit} bytes"),
        if size > limit {
            Err(format!(
                "the body has {size} bytes, over the {limit} of max-response-size"
            ))
        } else {
            Ok(())
        },
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::checks::judge::test_support::on_answer;
    use crate::checks::test_support::resp;
    use crate::outcome::Verdict;

    #[test]
    fn a_body_over_the_limit_fails_and_one_at_it_passes() {
        let r = resp(200, json!({"items": [1, 2, 3]}));
        let len = r.body.len() as u64;
        assert_eq!(response_size(len, &r).verdict, Verdict::Passed);
        let over = response_size(len - 1, &r);
        assert_eq!(over.verdict, Verdict::Failed);
        assert_eq!(over.check, Check::ResponseSize);
        assert_eq!(over.level, Level::Should);
        assert!(
            over.message.contains(&format!("{len} bytes")),
            "{}",
            over.message
        );
    }

    #[test]
    fn nothing_is_judged_without_the_setting() {
        let mut o = CheckOptions::default();
        let r = resp(200, json!({}));
        assert!(on_answer(judge, &o, &r).is_empty());
        o.set(&MAX_RESPONSE_SIZE, "1").unwrap();
        let f = on_answer(judge, &o, &r);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].verdict, Verdict::Failed);
    }
}
