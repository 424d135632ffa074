//! The spec and contract files built into the binary, the defaults of `--spec` and
//! `--contracts`. An installed `conformance` binary then runs anywhere, against the
//! interface it was built for, without the checkout it came from; `--spec`/`--contracts`
//! still point it at other files. Cargo rebuilds when any of these files changes.

/// How reports and errors name the built-in spec, and its text.
pub const SPEC: (&str, &str) = (
    "spec/openapi.yaml (built in)",
    include_str!("../../spec/openapi.yaml"),
);

/// The built-in contract files, in the order a directory load takes them (file name).
/// A test keeps this list equal to `conformance/contracts/*.yaml`.
pub const CONTRACTS: &[(&str, &str)] = &[
    (
        "conformance/contracts/00-discovery.yaml",
        include_str!("../contracts/00-discovery.yaml"),
    ),
    (
        "conformance/contracts/10-token.yaml",
        include_str!("../contracts/10-token.yaml"),
    ),
    (
        "conformance/contracts/20-risk.yaml",
        include_str!("../contracts/20-risk.yaml"),
    ),
    (
        "conformance/contracts/30-scopes.yaml",
        include_str!("../contracts/30-scopes.yaml"),
    ),
    (
        "conformance/contracts/40-contact.yaml",
        include_str!("../contracts/40-contact.yaml"),
    ),
];

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::contracts::Contracts;
    use crate::spec::Spec;

    #[test]
    fn built_in_files_are_the_checkout_s_files() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let spec = std::fs::read_to_string(root.join("../spec/openapi.yaml")).unwrap();
        assert_eq!(SPEC.1, spec);
        let mut on_disk: Vec<String> = std::fs::read_dir(root.join("contracts"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml") || n.ends_with(".yml"))
            .map(|n| format!("conformance/contracts/{n}"))
            .collect();
        on_disk.sort();
        let built_in: Vec<String> = CONTRACTS.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(built_in, on_disk, "add the new contract file to CONTRACTS");
        for (name, text) in CONTRACTS {
            let file = root.join("..").join(name);
            assert_eq!(*text, std::fs::read_to_string(file).unwrap(), "{name}");
        }
    }

    #[test]
    fn built_in_contracts_load_against_the_built_in_spec() {
        let spec = Spec::parse(SPEC.1).unwrap();
        let from_dir = Contracts::load_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("contracts"),
            &spec,
        )
        .unwrap();
        let built_in = Contracts::load_builtin(&spec).unwrap();
        assert!(!built_in.cases.is_empty());
        assert_eq!(
            format!("{:?}", built_in.cases),
            format!("{:?}", from_dir.cases)
        );
        assert_eq!(built_in.vars, from_dir.vars);
    }
}
