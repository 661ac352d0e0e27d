//! OIDC bearer tokens over real HTTP: the fixture server plays the identity provider (its
//! discovery document and key set on loopback), tokens are signed with the fixture keys in
//! `testdata/oidc/` (made for these tests, never used anywhere else), and the registry
//! checks them as it would Entra ID's, Cognito's or Keycloak's.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use crate::support;

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use skills_registry::OidcConfig;
use support::{Backend, Client, Harness, Reply, skill_md};

const REALM: &str = "/realms/acme";
const AUDIENCE: &str = "skills-registry";

struct Signer {
    key: EncodingKey,
    alg: Algorithm,
    kid: &'static str,
}

impl Signer {
    fn rsa(pem: &[u8], kid: &'static str) -> Self {
        skills_registry::oidc::install_crypto_provider();
        Self {
            key: EncodingKey::from_rsa_pem(pem).unwrap(),
            alg: Algorithm::RS256,
            kid,
        }
    }

    fn main() -> Self {
        Self::rsa(include_bytes!("../../testdata/oidc/rsa.pem"), "k1")
    }

    fn rotated() -> Self {
        Self::rsa(include_bytes!("../../testdata/oidc/rsa-rotated.pem"), "k2")
    }

    fn ec() -> Self {
        skills_registry::oidc::install_crypto_provider();
        Self {
            key: EncodingKey::from_ec_pem(include_bytes!("../../testdata/oidc/ec.pem")).unwrap(),
            alg: Algorithm::ES256,
            kid: "ec1",
        }
    }

    fn jwk(&self) -> Jwk {
        let mut jwk = Jwk::from_encoding_key(&self.key, self.alg).unwrap();
        jwk.common.key_id = Some(self.kid.to_string());
        jwk
    }

    fn sign(&self, claims: &Value) -> String {
        self.sign_as(Some(self.kid), claims)
    }

    fn sign_as(&self, kid: Option<&str>, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = kid.map(str::to_string);
        jsonwebtoken::encode(&header, claims, &self.key).unwrap()
    }
}

fn now() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    )
    .unwrap()
}

/// A registry that trusts the fixture as its OIDC issuer, publishing `keys`.
fn start(keys: &[&Signer], configure: impl FnOnce(&mut OidcConfig)) -> (Harness, String) {
    let mut issuer = String::new();
    let h = Harness::start_with(&Backend::Sqlite, |config, port| {
        issuer = format!("http://127.0.0.1:{port}{REALM}");
        let mut oidc = OidcConfig::new(issuer.clone(), AUDIENCE);
        oidc.admin_groups = vec!["skills-admins".to_string()];
        configure(&mut oidc);
        config.oidc = Some(oidc);
    });
    h.serve(
        &format!("{REALM}/.well-known/openid-configuration"),
        &json!({
            "issuer": issuer,
            "jwks_uri": h.url(&format!("{REALM}/protocol/openid-connect/certs")),
        })
        .to_string(),
    );
    publish(&h, keys);
    (h, issuer)
}

fn publish(h: &Harness, keys: &[&Signer]) {
    let set = JwkSet {
        keys: keys.iter().map(|k| k.jwk()).collect(),
    };
    h.serve(
        &format!("{REALM}/protocol/openid-connect/certs"),
        &serde_json::to_string(&set).unwrap(),
    );
}

/// Claims of a good token for `user` in `groups`.
fn claims(issuer: &str, user: &str, groups: &[&str]) -> Value {
    json!({
        "iss": issuer,
        "aud": AUDIENCE,
        "sub": user,
        "groups": groups,
        "iat": now(),
        "exp": now() + 600,
    })
}

fn refused(reply: &Reply, why: &str) {
    assert_eq!(reply.status, 401, "{}", reply.body);
    let problem = reply.json();
    assert_eq!(problem["type"], "/problems/invalid-token", "{problem}");
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains(why), "`{detail}` should say `{why}`");
    assert_eq!(
        reply.header("www-authenticate"),
        "Bearer error=\"invalid_token\""
    );
}

/// Registers `public`, `private` (alice's) and `team` (group `eng`) with an API token.
fn register_three(h: &Harness) {
    let alice = h.client("alice", &[], false);
    for (name, access) in [
        ("public-one", json!({"visibility": "public"})),
        ("private-one", json!({"visibility": "private"})),
        (
            "team-one",
            json!({"visibility": "group", "allowed_groups": ["eng"]}),
        ),
    ] {
        let path = format!("/o/r/main/{name}/SKILL.md");
        h.serve(
            &path,
            &skill_md(name, &format!("Does {name}. Use when {name}."), ""),
        );
        let mut body = access;
        body["skill_md_url"] = json!(h.url(&path));
        let reply = alice.post("/api/skills", &body);
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
}

fn names(client: &Client) -> Vec<String> {
    let reply = client.get("/api/skills");
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn tokens_of_the_issuer_say_who_the_caller_is_and_their_groups() {
    let key = Signer::main();
    let (h, issuer) = start(&[&key], |_| {});
    register_three(&h);
    let hits_before = h.fixture_hits();

    let bob = Client::with_token(&h, &key.sign(&claims(&issuer, "bob", &["eng"])));
    assert_eq!(names(&bob), ["public-one", "team-one"]);
    assert_eq!(bob.get("/api/skills/private-one").status, 404);
    // Discovery and the key set, once; the verified token is then kept.
    assert_eq!(h.fixture_hits() - hits_before, 2);
    for _ in 0..5 {
        assert_eq!(bob.get("/api/skills/team-one").status, 200);
    }
    assert_eq!(h.fixture_hits() - hits_before, 2);

    let sales = Client::with_token(&h, &key.sign(&claims(&issuer, "dan", &["sales"])));
    assert_eq!(names(&sales), ["public-one"]);

    let admin = Client::with_token(&h, &key.sign(&claims(&issuer, "root", &["skills-admins"])));
    assert_eq!(names(&admin), ["private-one", "public-one", "team-one"]);
    assert_eq!(
        admin.put("/api/skills/team-one/disable", &json!({})).status,
        200
    );
    assert_eq!(names(&bob), ["public-one"]);

    // The token's user owns what they register, and only they (or an admin) change it.
    h.serve(
        "/o/r/main/bobs/SKILL.md",
        &skill_md("bobs", "Does bobs. Use when bobs.", ""),
    );
    let reply = bob.post(
        "/api/skills",
        &json!({"skill_md_url": h.url("/o/r/main/bobs/SKILL.md"), "visibility": "private"}),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
    assert_eq!(reply.json()["owner"], "bob");
    assert_eq!(sales.delete("/api/skills/bobs").status, 404);
    assert_eq!(bob.delete("/api/skills/bobs").status, 204);
}

#[test]
fn tokens_that_do_not_verify_are_refused_with_the_reason() {
    let key = Signer::main();
    let (h, issuer) = start(&[&key, &Signer::rotated(), &Signer::ec()], |_| {});
    let good = claims(&issuer, "bob", &[]);
    let with = |change: &dyn Fn(&mut Value)| {
        let mut c = good.clone();
        change(&mut c);
        c
    };
    let get = |token: &str| Client::with_token(&h, token).get("/api/skills");

    assert_eq!(get(&key.sign(&good)).status, 200);
    assert_eq!(get(&Signer::ec().sign(&good)).status, 200);

    let expired = with(&|c| c["exp"] = json!(now() - 3600));
    refused(&get(&key.sign(&expired)), "expired");
    // Within the leeway, an expired token still passes (clocks differ).
    let just_expired = with(&|c| c["exp"] = json!(now() - 10));
    assert_eq!(get(&key.sign(&just_expired)).status, 200);
    let early = with(&|c| c["nbf"] = json!(now() + 3600));
    refused(&get(&key.sign(&early)), "not valid yet");
    let other_audience = with(&|c| c["aud"] = json!("another-app"));
    refused(&get(&key.sign(&other_audience)), "another audience");
    let other_issuer = with(&|c| c["iss"] = json!("https://evil.example.com"));
    refused(&get(&key.sign(&other_issuer)), "another issuer");
    let no_exp = with(&|c| {
        c.as_object_mut().unwrap().remove("exp");
    });
    refused(&get(&key.sign(&no_exp)), "`exp`");
    let no_user = with(&|c| {
        c.as_object_mut().unwrap().remove("sub");
    });
    refused(&get(&key.sign(&no_user)), "`sub`");

    // Signed by another key under the published key's id.
    let impostor = Signer::rsa(include_bytes!("../../testdata/oidc/rsa-rotated.pem"), "k1");
    refused(&get(&impostor.sign(&good)), "signature");
    // HMAC with a key anyone can read (the published one), and no signature at all.
    skills_registry::oidc::install_crypto_provider();
    let hmac = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &good,
        &EncodingKey::from_secret(b"public"),
    )
    .unwrap();
    refused(&get(&hmac), "HS256");
    let unsigned = format!(
        "{}.{}.",
        base64_url(br#"{"alg":"none","typ":"JWT"}"#),
        base64_url(good.to_string().as_bytes())
    );
    refused(&get(&unsigned), "not a JWT");
    // Without a key id: fine when one published key fits the algorithm, refused when two do.
    assert_eq!(get(&Signer::ec().sign_as(None, &good)).status, 200);
    refused(&get(&key.sign_as(None, &good)), "names no key");
    refused(&get("not-a-token"), "not a JWT");
    // Without OIDC configured, only the registry's own tokens are taken.
    let plain = Harness::start(&Backend::Sqlite);
    let reply = Client::with_token(&plain, &key.sign(&good)).get("/api/skills");
    refused(&reply, "no OIDC issuer is configured");
}

fn base64_url(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

#[test]
fn rotated_keys_are_fetched_again_but_unknown_ones_do_not_hammer_the_issuer() {
    let old = Signer::main();
    let new = Signer::rotated();
    let (h, issuer) = start(&[&old], |oidc| oidc.min_key_refresh_secs = 1);
    let good = claims(&issuer, "bob", &[]);
    assert_eq!(
        Client::with_token(&h, &old.sign(&good))
            .get("/api/skills")
            .status,
        200
    );

    // The issuer rotates. Right after a fetch the set is not fetched again; once the
    // cool-down has passed, the new key works from its first request.
    publish(&h, &[&old, &new]);
    let before = h.fixture_hits();
    refused(
        &Client::with_token(&h, &new.sign(&good)).get("/api/skills"),
        "not one of the issuer's keys",
    );
    assert_eq!(h.fixture_hits(), before);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let reply = Client::with_token(&h, &new.sign(&good)).get("/api/skills");
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(h.fixture_hits() - before, 2, "discovery and keys, once");

    // Keys nobody published: the set was just fetched, so it is not fetched again.
    let before = h.fixture_hits();
    for kid in ["nope", "nope-2", "nope-3"] {
        let forged = Signer::rsa(include_bytes!("../../testdata/oidc/rsa-rotated.pem"), kid);
        refused(
            &Client::with_token(&h, &forged.sign(&good)).get("/api/skills"),
            "not one of the issuer's keys",
        );
    }
    assert_eq!(h.fixture_hits(), before);
}

#[test]
fn claims_are_read_where_each_provider_puts_them() {
    let key = Signer::main();
    // Keycloak's realm roles, and a user named by `preferred_username`.
    let (h, issuer) = start(&[&key], |oidc| {
        oidc.groups_claim = "realm_access.roles".to_string();
        oidc.user_claim = "preferred_username".to_string();
    });
    register_three(&h);
    let keycloak = json!({
        "iss": issuer, "aud": [AUDIENCE, "account"], "sub": "5f0c-…",
        "preferred_username": "bob", "realm_access": {"roles": ["eng", "offline_access"]},
        "exp": now() + 600,
    });
    let bob = Client::with_token(&h, &key.sign(&keycloak));
    assert_eq!(names(&bob), ["public-one", "team-one"]);
    h.serve(
        "/o/r/main/mine/SKILL.md",
        &skill_md("mine", "Does mine. Use when mine.", ""),
    );
    let reply = bob.post(
        "/api/skills",
        &json!({"skill_md_url": h.url("/o/r/main/mine/SKILL.md")}),
    );
    assert_eq!(reply.json()["owner"], "bob");

    // Cognito's `cognito:groups`.
    let (h, issuer) = start(&[&key], |oidc| {
        oidc.groups_claim = "cognito:groups".to_string();
    });
    register_three(&h);
    let cognito = json!({
        "iss": issuer, "aud": AUDIENCE, "sub": "carol", "cognito:groups": ["eng"],
        "exp": now() + 600,
    });
    assert_eq!(
        names(&Client::with_token(&h, &key.sign(&cognito))),
        ["public-one", "team-one"]
    );
}

#[test]
fn an_issuer_whose_keys_cannot_be_had_is_unavailable_not_a_bad_token() {
    let key = Signer::main();
    let (h, issuer) = start(&[&key], |_| {});
    h.remove(&format!("{REALM}/protocol/openid-connect/certs"));
    let token = key.sign(&claims(&issuer, "bob", &[]));
    let reply = Client::with_token(&h, &token).get("/api/skills");
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(reply.json()["type"], "/problems/unavailable");

    // A discovery document of another issuer is not believed.
    let (h, issuer) = start(&[&key], |_| {});
    h.serve(
        &format!("{REALM}/.well-known/openid-configuration"),
        &json!({"issuer": "https://elsewhere.example.com", "jwks_uri": h.url("/keys")}).to_string(),
    );
    let reply = Client::with_token(&h, &key.sign(&claims(&issuer, "bob", &[]))).get("/api/skills");
    assert_eq!(reply.status, 503, "{}", reply.body);
}
