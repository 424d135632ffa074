//! Seeded bugs ("fault switches"). Each one turns the reference server into a
//! plausible but non-conformant implementation, so that a test can prove the
//! conformance harness notices it. None is active unless a caller asks for it through
//! [`crate::Config::faults`] or the hidden `--fault NAME` flag.

use std::fmt;
use std::str::FromStr;

macro_rules! faults {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal : $desc:literal, )+) => {
        /// One seeded bug of the reference server.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Fault {
            $( $(#[$doc])* $variant, )+
        }

        impl Fault {
            /// Every fault, in a stable order (the order of the harness's fault tests).
            pub const ALL: &'static [Fault] = &[ $( Fault::$variant, )+ ];

            /// The kebab-case name used by `--fault` and in reports.
            pub fn name(self) -> &'static str {
                match self { $( Fault::$variant => $name, )+ }
            }

            /// What goes wrong, and which conformance check is expected to catch it.
            pub fn description(self) -> &'static str {
                match self { $( Fault::$variant => $desc, )+ }
            }
        }
    };
}

faults! {
    /// `suggest` answers without checking the bearer token.
    AuthNotEnforced = "auth-not-enforced":
        "riskCategory/suggest answers 200 without any Authorization header; caught by ignored_auth (MUST, decision 1)",
    /// `l` is not applied to `suggest`.
    LimitIgnored = "limit-ignored":
        "riskCategory/suggest returns every match whatever l says; caught by the max-items-param rule (MUST: at most l entries)",
    /// The combined-length rule allows 61 characters.
    CombinedRuleOffByOne = "combined-rule-off-by-one":
        "updatecontactinfoname accepts firstName+lastName of 61 characters; caught by the combined-length boundary case 60/61 (MUST, decision 17)",
    /// Lengths are counted in UTF-8 bytes.
    BytesCounted = "bytes-counted":
        "updatecontactinfoname counts UTF-8 bytes instead of characters, so 60 characters of `é` or `中` are rejected; caught by the multi-byte length boundary cases (MUST, decision 18)",
    /// `deps` also returns a limit of another category.
    DepsLeaksOtherCategory = "deps-leaks-other-category":
        "categoryPositionLimit/deps appends a limit of another risk category; caught by the items-field-equals-param rule (riskCategoryId = masterid, MUST)",
    /// `totalBy` values are sent in lower case.
    EnumMisspelled = "enum-misspelled":
        "every totalBy is sent lower-cased (\"contract\"), a value outside the enum; caught by response_schema_conformance on deps and item",
    /// The required `active` field is left out of position limits.
    RequiredFieldDropped = "required-field-dropped":
        "position limits are sent without their required `active` field; caught by response_schema_conformance on deps and item",
    /// The contact update overwrites the street address.
    UpdateClobbersAddress = "update-clobbers-address":
        "updatecontactinfoname writes the new name into streetAddress1 and the new country into city; caught by the preserves-other-fields rule (update twice, untouched fields must not change, MUST, decision 16)",
    /// `item` answers 500 for an unknown id.
    ServerErrorOnUnknownId = "server-error-on-unknown-id":
        "categoryPositionLimit/item answers 500 for an unknown id; caught by not_a_server_error (MUST, decision 20)",
    /// A successful token exchange carries a non-empty `error`.
    ErrorOnSuccess = "error-on-success":
        "a successful token exchange has error \"none\"; caught by the fields-equal rule on error/error_description (MUST)",
    /// `finds` honours only the first name.
    OnlyFirstName = "only-first-name":
        "marketDataSubscriptionExchangeScope/finds looks up only the first of `names`; caught by the finds contract case that asks for two known scopes and expects both",
    /// The contact update says it succeeded but keeps the old names.
    UpdateKeepsOldNames = "update-keeps-old-names":
        "updatecontactinfoname answers success with errorText \"\" but keeps the old firstName/lastName; caught by the echoes-request rule (MUST, decision 16)",
    /// `suggest` stalls for 30 seconds.
    Stall = "stall":
        "riskCategory/suggest waits 30 seconds before answering; caught by the harness's --timeout (a timeout is a failure)",
    /// `suggest` matches case-sensitively.
    SuggestCaseSensitive = "suggest-case-sensitive":
        "riskCategory/suggest matches t case-sensitively, so `equit` finds nothing; caught by the suggest contract case expecting `Equities` for `equit` (SHOULD, decision 8)",
    /// `deps` is sent with a `text/plain` content type.
    WrongContentType = "wrong-content-type":
        "categoryPositionLimit/deps answers with Content-Type text/plain; caught by content_type_conformance",
    /// `item` returns a different record than the one asked for.
    ItemWrongId = "item-wrong-id":
        "categoryPositionLimit/item returns the record following the one asked for; caught by the field-equals-param rule (id = id, MUST)",
    /// A missing `masterid` is answered 200.
    MissingParamAccepted = "missing-param-accepted":
        "categoryPositionLimit/deps without masterid answers 200 []; caught by the missing-required-parameter negative case (MUST: never 2xx, decision 2)",
    /// A successful token exchange says `token_type: mac`.
    TokenTypeWrong = "token-type-wrong":
        "a successful token exchange has token_type \"mac\"; caught by the fields-equal rule token_type = Bearer (SHOULD, decision 10: fails under --strict)",
    /// One position limit deep in the data set has a `totalBy` outside the enum.
    DeepEnumMisspelled = "deep-enum-misspelled":
        "the last position limit of the data set (in the last category, never the first one discovery picks) is sent with totalBy lower-cased; caught by response_schema_conformance on the data sweep's deps and item answers",
    /// One position limit deep in the data set lacks its required `active` field.
    DeepRequiredFieldDropped = "deep-required-field-dropped":
        "the last-but-one position limit of the data set (in another category than the first) is sent without its required `active`; caught by response_schema_conformance on the data sweep's deps and item answers",
    /// The contact update refuses to give a renamed record its original first name back.
    ContactRefusesOldName = "contact-refuses-old-name":
        "updatecontactinfoname refuses (200 with errorText) a firstName the record held in the data set once the record has been renamed, so the harness's restore at the end of the run fails; caught by state_restored, which names the values to put back",
    /// A number sent for a string field of the contact update is read as its text.
    NumbersCoercedToText = "numbers-coerced-to-text":
        "updatecontactinfoname reads a number sent where a string is declared as its text (12345 → \"12345\") and accepts the update; caught by the coercible-field negative cases at the spec's x-mistyped-input coercible level (SHOULD: warns, fails under --strict)",
    /// An unreadable `masterid` is answered as if it named no category.
    UnreadableIdAccepted = "unreadable-id-accepted":
        "categoryPositionLimit/deps answers 200 [] to a masterid that cannot be read as an integer (masterid=not-a-number); caught by the mistyped-param negative case at the spec's x-mistyped-input unreadable level (MUST)",
    /// Any syntactically valid bearer token is accepted on `deps`.
    UnknownTokenAccepted = "unknown-token-accepted":
        "categoryPositionLimit/deps accepts any well-formed bearer token, known or not; caught by ignored_auth with an unknown token (MUST, decision 1)",
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `--fault` name that names no fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fault `{given}`; known faults: {known}")]
pub struct UnknownFault {
    given: String,
    known: String,
}

impl FromStr for Fault {
    type Err = UnknownFault;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::ALL
            .iter()
            .copied()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFault {
                given: s.to_string(),
                known: Fault::ALL
                    .iter()
                    .map(|f| f.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// The set of active faults, cheap to query on every request.
#[derive(Clone, Debug, Default)]
pub(crate) struct Faults(Vec<Fault>);

impl Faults {
    pub(crate) fn new(faults: &[Fault]) -> Self {
        let mut v = faults.to_vec();
        v.sort_by_key(|f| f.name());
        v.dedup();
        Faults(v)
    }

    pub(crate) fn has(&self, fault: Fault) -> bool {
        self.0.contains(&fault)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for f in Fault::ALL {
            assert_eq!(f.name().parse::<Fault>().unwrap(), *f);
            assert!(seen.insert(f.name()), "duplicate name {}", f.name());
            assert!(!f.description().is_empty());
        }
        assert!(Fault::ALL.len() >= 15);
    }

    #[test]
    fn unknown_name_lists_the_known_ones() {
        let err = "no-such-fault".parse::<Fault>().unwrap_err().to_string();
        assert!(err.contains("no-such-fault") && err.contains("limit-ignored"));
    }
}
