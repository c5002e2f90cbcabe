//! The committed OpenAPI document, served at `/openapi.json`.

pub const DOCUMENT: &str = include_str!("../openapi/openapi.json");

use serde_json::{Map, Value};

/// The components every registered game adds to the document: `<Game>Options`,
/// `<Game>Action` (a `oneOf` by `type`), `<Game>State`, `<Game>LegalAction` and
/// `<Game>LastResult`, with the definitions they share lifted to `<Game>_<Name>`.
pub fn game_schemas() -> Map<String, Value> {
    let mut out = Map::new();
    for game in games::all() {
        let s = game.schemas();
        let prefix = capitalized(game.name());
        for (part, schema) in [
            ("Options", s.options),
            ("Action", s.action),
            ("State", s.state),
            ("LegalAction", s.legal_action),
            ("LastResult", s.last_result),
        ] {
            let mut schema = retarget(schema, &prefix);
            if let Some(defs) = schema.as_object_mut().and_then(|o| o.remove("$defs")) {
                for (name, def) in defs.as_object().into_iter().flatten() {
                    out.insert(format!("{prefix}_{name}"), def.clone());
                }
            }
            if let Some(o) = schema.as_object_mut() {
                o.remove("$schema");
            }
            out.insert(format!("{prefix}{part}"), schema);
        }
    }
    out
}

fn capitalized(name: &str) -> String {
    let mut c = name.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// Points schemars' `#/$defs/X` references at the lifted components.
fn retarget(v: Value, prefix: &str) -> Value {
    match v {
        Value::String(s) => match s.strip_prefix("#/$defs/") {
            Some(name) => Value::String(format!("#/components/schemas/{prefix}_{name}")),
            None => Value::String(s),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(|x| retarget(x, prefix)).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, x)| (k, retarget(x, prefix)))
                .collect(),
        ),
        other => other,
    }
}
