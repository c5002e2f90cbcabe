//! The committed OpenAPI document, served at `/openapi.json`.

pub const DOCUMENT: &str = include_str!("../openapi/openapi.json");

use serde_json::{Map, Value, json};

/// Writes into `doc` every part of the document that the registered games decide: their
/// schemas, and the `game` enums of creating a match (every game), creating a tournament (games
/// with a fixed table size) and the coin-room lobby (games with coin rooms). The committed
/// document must be a fixed point of this (a test checks it).
pub fn regenerate(doc: &mut Value) {
    let schemas = &mut doc["components"]["schemas"];
    for (name, schema) in game_schemas() {
        schemas[name] = schema;
    }
    let names = |keep: fn(&dyn games::DynGame) -> bool| {
        json!(
            games::all()
                .iter()
                .filter(|g| keep(**g))
                .map(|g| g.name())
                .collect::<Vec<_>>()
        )
    };
    schemas["CreateMatch"]["properties"]["game"]["enum"] = names(|_| true);
    schemas["CreateTournament"]["properties"]["game"]["enum"] = names(|g| g.table_size().is_some());
    let (all, coin_games) = (names(|_| true), names(|g| g.coin_rooms()));
    // Every `game` parameter: the lobby's name the games with coin rooms, the lists' any game.
    for (path, ops) in doc["paths"].as_object_mut().into_iter().flatten() {
        let games = if path.starts_with("/v1/lobby/{game}") {
            &coin_games
        } else if path == "/v1/matches" || path == "/v1/me/matches" {
            &all
        } else {
            continue;
        };
        for op in ops.as_object_mut().into_iter().flatten().map(|(_, op)| op) {
            let params = op.get_mut("parameters").and_then(Value::as_array_mut);
            for p in params.into_iter().flatten() {
                if p["name"] == "game" {
                    p["schema"]["enum"] = games.clone();
                }
            }
        }
    }
}

/// The components every registered game adds to the document: `<Game>Options`,
/// `<Game>Action` (a `oneOf` by `type`), `<Game>State`, `<Game>LegalAction` and
/// `<Game>LastResult`, with the definitions they share lifted to `<Game>_<Name>`.
fn game_schemas() -> Map<String, Value> {
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
