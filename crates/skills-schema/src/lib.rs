//! Checks that a JSON Schema is one a client can compile: what `skills lint` asks of an MCP
//! tool's `inputSchema` and `outputSchema` (its rule `tool-schema-invalid`).
//!
//! A schema passes when the [`jsonschema`] crate compiles it: it is valid against its
//! draft's meta-schema (2020-12 unless `$schema` names another), every `pattern` and
//! `patternProperties` key is an ECMA-262 regular expression (look-around included, through
//! `fancy-regex`) that compiles within [`PATTERN_SIZE_LIMIT`] bytes, and every `$ref`
//! resolves inside the document (nothing is fetched).
//!
//! ```
//! use serde_json::json;
//!
//! let ok = json!({"type": "object", "properties": {"q": {"type": "string", "pattern": "^(?!x)"}}});
//! assert!(skills_schema::check(&ok).is_ok());
//!
//! let bad = json!({"type": "object", "properties": {"q": {"type": "strin"}}});
//! let error = skills_schema::check(&bad).unwrap_err();
//! assert_eq!(error.instance_path, "/properties/q/type");
//! ```
//!
//! Why a crate of its own: `jsonschema`'s compiler is generic over the JSON type, so the
//! crate that calls it compiles all of it again unless both share their generic code, which
//! rustc does only between crates built for size. The `release` profile builds this crate
//! (and `jsonschema`) that way, so the compiler is built once for every caller, and
//! `skills-lint`, whose checks run at full speed, does not carry it (docs/performance.md,
//! "Building").

use serde_json::Value;

/// Bytes a compiled `pattern` may take. The regex engine's own default is 10 MiB per
/// pattern, which a schema of many patterns multiplies; unbounded, the 388-byte
/// `"(?<=\\w{1,20000})b"` took 3 s and 2 GB to compile, and any `tools.json` in a pull request
/// or a downloaded archive is compiled by `skills lint`, `package` and `install`.
pub const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// Why a schema does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct SchemaError {
    /// Where in the schema, as a JSON Pointer (`/properties/q/pattern`); empty for the root.
    pub instance_path: String,
    /// What is wrong there, as the compiler says it.
    pub message: String,
}

impl SchemaError {
    /// The error is about a `pattern` or a `patternProperties` key: a regular expression
    /// that is not valid ECMA-262 or does not compile within [`PATTERN_SIZE_LIMIT`].
    #[must_use]
    pub fn is_pattern(&self) -> bool {
        self.instance_path.ends_with("/pattern")
            || self.instance_path.contains("/patternProperties/")
    }
}

/// Compiles `schema`: `Ok` when a client could validate arguments with it.
///
/// # Errors
///
/// The first [`SchemaError`] the compiler meets.
pub fn check(schema: &Value) -> Result<(), SchemaError> {
    let options = jsonschema::options().with_pattern_options(
        jsonschema::PatternOptions::fancy_regex()
            .size_limit(PATTERN_SIZE_LIMIT)
            .dfa_size_limit(PATTERN_SIZE_LIMIT),
    );
    match options.build(schema) {
        Ok(_) => Ok(()),
        Err(e) => Err(SchemaError {
            instance_path: e.instance_path().to_string(),
            message: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_valid_schema_with_look_around_compiles() {
        let schema = json!({
            "type": "object",
            "properties": {"q": {"type": "string", "pattern": "^(?!tmp)\\w+(?<=z)$"}},
            "patternProperties": {"^x-": {"type": "string"}},
            "$defs": {"n": {"type": "integer", "minimum": 0}},
            "additionalProperties": {"$ref": "#/$defs/n"}
        });
        assert_eq!(check(&schema), Ok(()));
    }

    #[test]
    fn a_misspelt_type_is_an_error_where_it_is() {
        let error =
            check(&json!({"type": "object", "properties": {"q": {"type": "strin"}}})).unwrap_err();
        assert_eq!(error.instance_path, "/properties/q/type");
        assert!(!error.is_pattern());
    }

    #[test]
    fn a_pattern_too_large_to_compile_is_an_error_not_gigabytes() {
        let schema = json!({"properties": {"q": {"pattern": "(?<=\\w{1,20000})b"}}});
        let error = check(&schema).unwrap_err();
        assert_eq!(error.instance_path, "/properties/q/pattern");
        assert!(error.is_pattern());
    }

    #[test]
    fn a_broken_pattern_property_is_a_pattern_error() {
        let error = check(&json!({"patternProperties": {"(": {}}})).unwrap_err();
        assert!(error.is_pattern(), "{error:?}");
    }

    #[test]
    fn an_external_ref_is_not_fetched() {
        let schema = json!({"properties": {"q": {"$ref": "https://example.com/s.json"}}});
        assert!(check(&schema).is_err());
    }

    #[test]
    fn an_older_draft_is_checked_against_its_own_meta_schema() {
        let draft7 = "http://json-schema.org/draft-07/schema#";
        // `exclusiveMinimum` is a boolean in draft 4 and a number from draft 6 on.
        assert!(check(&json!({"$schema": draft7, "exclusiveMinimum": 1})).is_ok());
        assert!(check(&json!({"$schema": draft7, "exclusiveMinimum": true})).is_err());
    }
}
