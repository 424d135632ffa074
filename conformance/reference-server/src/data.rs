//! The data set the server answers from: a YAML file whose records use the wire types
//! of the generated crate, so the data file and the interface cannot drift apart.
//! The default set is embedded so the server works on a fresh machine with no files.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::Path;

use serde::Deserialize;
use trading_api::models::{
    CategoryPositionLimit, ContactInfo, MarketDataSubscriptionExchangeScope, ProductType,
    ProductVerificationStatus, RiskCategory, TotalBy,
};

use crate::error::ServerError;

/// The embedded default data set (`data/default.yaml`).
pub const DEFAULT_DATA: &str = include_str!("../data/default.yaml");

/// A registered OAuth client.
#[derive(Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OAuthClient {
    /// The public client id.
    pub client_id: String,
    /// The client secret; demo data, but still never printed by `Debug`.
    pub client_secret: String,
    /// Redirect URIs a code may be issued for (exact match, RFC 6749 §3.1.2.3).
    pub redirect_uris: Vec<String>,
    /// The user the authorization step approves this client's requests for.
    pub user_id: i64,
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClient")
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("redirect_uris", &self.redirect_uris)
            .field("user_id", &self.user_id)
            .finish()
    }
}

/// A user and the contact record the contact update changes.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct User {
    /// The user id (equal to `contactInfo.userId`).
    pub id: i64,
    /// The user's contact record as the data file gives it.
    pub contact_info: ContactInfo,
}

/// The whole data set, validated.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DataSet {
    /// OAuth clients; the first is the demo client.
    pub oauth_clients: Vec<OAuthClient>,
    /// Users with their contact records.
    pub users: Vec<User>,
    /// Risk categories (`suggest`).
    pub risk_categories: Vec<RiskCategory>,
    /// Position limits (`deps`, `item`).
    pub position_limits: Vec<CategoryPositionLimit>,
    /// Exchange scopes (`finds`).
    pub exchange_scopes: Vec<MarketDataSubscriptionExchangeScope>,
}

impl DataSet {
    /// Parses and validates a data set; `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, ServerError> {
        let data: DataSet = serde_yaml::from_str(text).map_err(|e| ServerError::Data {
            origin: origin.to_string(),
            message: e.to_string(),
        })?;
        data.validate().map_err(|message| ServerError::Data {
            origin: origin.to_string(),
            message,
        })?;
        Ok(data)
    }

    /// Reads, parses and validates a data file.
    pub fn load(path: &Path) -> Result<Self, ServerError> {
        let text = std::fs::read_to_string(path).map_err(|e| ServerError::Data {
            origin: path.display().to_string(),
            message: format!("cannot read: {e}"),
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// The embedded default data set.
    pub fn embedded() -> Result<Self, ServerError> {
        Self::parse(DEFAULT_DATA, "embedded data/default.yaml")
    }

    /// Checks what serde cannot: unique ids, references that resolve, and enum values
    /// the spec knows (the models accept unknown values, a data file must not use them).
    fn validate(&self) -> Result<(), String> {
        if self.oauth_clients.is_empty() {
            return Err("oauthClients: at least one client (the demo client) is required".into());
        }
        let user_ids: HashSet<i64> = self.users.iter().map(|u| u.id).collect();
        unique("users", self.users.iter().map(|u| Some(u.id)))?;
        for (i, c) in self.oauth_clients.iter().enumerate() {
            if c.client_id.is_empty() || c.client_secret.is_empty() {
                return Err(format!(
                    "oauthClients[{i}]: clientId and clientSecret must not be empty"
                ));
            }
            if c.redirect_uris.is_empty() {
                return Err(format!(
                    "oauthClients[{i}]: at least one redirect URI is required"
                ));
            }
            if !user_ids.contains(&c.user_id) {
                return Err(format!(
                    "oauthClients[{i}]: userId {} names no user",
                    c.user_id
                ));
            }
        }
        let mut client_ids = HashSet::new();
        for c in &self.oauth_clients {
            if !client_ids.insert(c.client_id.as_str()) {
                return Err(format!(
                    "oauthClients: clientId `{}` appears twice",
                    c.client_id
                ));
            }
        }
        for (i, u) in self.users.iter().enumerate() {
            if u.contact_info.user_id != u.id {
                return Err(format!(
                    "users[{i}]: contactInfo.userId {} differs from id {}",
                    u.contact_info.user_id, u.id
                ));
            }
        }
        unique("riskCategories", self.risk_categories.iter().map(|c| c.id))?;
        unique("positionLimits", self.position_limits.iter().map(|l| l.id))?;
        unique("exchangeScopes", self.exchange_scopes.iter().map(|s| s.id))?;
        let category_ids: HashSet<i64> = self.risk_categories.iter().filter_map(|c| c.id).collect();
        let mut names = HashSet::new();
        for (i, s) in self.exchange_scopes.iter().enumerate() {
            if !names.insert(s.name.as_str()) {
                return Err(format!(
                    "exchangeScopes[{i}]: name `{}` appears twice",
                    s.name
                ));
            }
        }
        for (i, l) in self.position_limits.iter().enumerate() {
            if !category_ids.contains(&l.risk_category_id) {
                return Err(format!(
                    "positionLimits[{i}]: riskCategoryId {} names no risk category",
                    l.risk_category_id
                ));
            }
            if let TotalBy::Unknown(v) = &l.total_by {
                return Err(format!(
                    "positionLimits[{i}]: totalBy `{v}` is not a value of the spec"
                ));
            }
            if let Some(ProductType::Unknown(v)) = &l.product_type {
                return Err(format!(
                    "positionLimits[{i}]: productType `{v}` is not a value of the spec"
                ));
            }
            if let Some(ProductVerificationStatus::Unknown(v)) = &l.product_verification_status {
                return Err(format!(
                    "positionLimits[{i}]: productVerificationStatus `{v}` is not a value of the spec"
                ));
            }
        }
        Ok(())
    }

    /// Contact records keyed by user id, the mutable part of the state.
    pub(crate) fn contacts(&self) -> BTreeMap<i64, ContactInfo> {
        self.users
            .iter()
            .map(|u| (u.id, u.contact_info.clone()))
            .collect()
    }
}

fn unique(what: &str, ids: impl Iterator<Item = Option<i64>>) -> Result<(), String> {
    let mut seen = HashSet::new();
    for (i, id) in ids.enumerate() {
        let Some(id) = id else {
            return Err(format!("{what}[{i}]: id is required in the data file"));
        };
        if !seen.insert(id) {
            return Err(format!("{what}[{i}]: id {id} appears twice"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_data_is_valid_and_covers_every_enum_value() {
        let data = DataSet::embedded().unwrap();
        let total_by: HashSet<String> = data
            .position_limits
            .iter()
            .map(|l| l.total_by.as_str().to_string())
            .collect();
        for v in [
            "Contract",
            "ContractGroup",
            "DiscountGroup",
            "Exchange",
            "FungibleProduct",
            "Overall",
            "Product",
            "ProductType",
        ] {
            assert!(total_by.contains(v), "no limit totals by {v}");
        }
        let types: HashSet<String> = data
            .position_limits
            .iter()
            .filter_map(|l| l.product_type.as_ref().map(|t| t.as_str().to_string()))
            .collect();
        for v in [
            "CommonStock",
            "Continuous",
            "Cryptocurrency",
            "Futures",
            "MarketInternals",
            "Options",
            "Spread",
            "Swap",
        ] {
            assert!(types.contains(v), "no limit of product type {v}");
        }
        let statuses: HashSet<String> = data
            .position_limits
            .iter()
            .filter_map(|l| {
                l.product_verification_status
                    .as_ref()
                    .map(|t| t.as_str().to_string())
            })
            .collect();
        for v in [
            "Inactive",
            "Locked",
            "ReadyForContracts",
            "ReadyToTrade",
            "Verified",
        ] {
            assert!(statuses.contains(v), "no limit with status {v}");
        }
        let count = |cat: i64| {
            data.position_limits
                .iter()
                .filter(|l| l.risk_category_id == cat)
                .count()
        };
        assert!(
            data.risk_categories
                .iter()
                .any(|c| count(c.id.unwrap()) == 0)
        );
        assert!(
            data.risk_categories
                .iter()
                .any(|c| count(c.id.unwrap()) == 1)
        );
        assert!(
            data.risk_categories
                .iter()
                .any(|c| count(c.id.unwrap()) > 2)
        );
        assert!(data.exchange_scopes.iter().any(|s| s.bundle_of.is_some()));
    }

    #[test]
    fn a_bad_file_names_the_place() {
        let err = DataSet::parse("oauthClients: 3\n", "bad.yaml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad.yaml") && err.contains("line 1"), "{err}");
        let text = DEFAULT_DATA.replace("totalBy: Exchange", "totalBy: Exchang");
        let err = DataSet::parse(&text, "x.yaml").unwrap_err().to_string();
        assert!(err.contains("totalBy `Exchang`"), "{err}");
    }

    #[test]
    fn debug_redacts_the_client_secret() {
        let data = DataSet::embedded().unwrap();
        let shown = format!("{:?}", data.oauth_clients[0]);
        assert!(!shown.contains("demo-secret") && shown.contains("redacted"));
    }
}
