//! Every game's part of the OpenAPI document: the components each game's crate describes
//! (view, options, legal actions, events, results), lifted under the game's prefix, and the
//! view, actions and stream events typed per game with discriminators.

use serde_json::{Map, Value, json};

use super::operations;

/// A game's refusal codes and the platform's (`PlatformRule`), sorted.
fn game_rule_codes(game: &dyn games::DynGame) -> Vec<&'static str> {
    use games::engine::RuleCode as _;
    let platform = crate::api_types::PlatformRule::ALL.iter().map(|r| r.code());
    let mut codes: Vec<&str> = game.rule_codes().into_iter().chain(platform).collect();
    codes.sort_unstable();
    codes.dedup();
    codes
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// Writes every game's components, and types the view, actions and events per game.
pub(super) fn add_games(doc: &mut Value) {
    let schemas = doc["components"]["schemas"]
        .as_object_mut()
        .expect("the document has schemas");
    let base = schemas
        .remove("MatchViewBase")
        .expect("the view's schema is registered");
    let shown_options = schemas["PlatformOptions"].clone();
    let event_base = schemas["Event"].clone();
    let mut views = Vec::new();
    let mut actions = vec![schema_ref("Resume")];
    let mut event_pages = Vec::new();
    for game in games::all() {
        let name = game.name();
        let prefix = capitalized(name);
        let s = game.schemas();
        for (part, schema) in [
            ("Options", s.options),
            ("Action", s.action),
            ("State", s.state),
            ("LegalAction", s.legal_action),
            ("ResultDetail", s.last_result),
        ] {
            lift(schemas, &prefix, &format!("{prefix}{part}"), schema);
        }
        let kinds: Vec<&str> = s.events.keys().copied().collect();
        for (kind, schema) in s.events {
            lift(
                schemas,
                &prefix,
                &format!("{prefix}{}Data", capitalized_words(kind)),
                schema,
            );
        }
        schemas.insert(
            format!("{prefix}RuleCode"),
            json!({
                "description": format!("The rules a {name} refusal may name (Problem.rule)"),
                "type": "string",
                "enum": game_rule_codes(*game),
            }),
        );
        schemas.insert(
            format!("{prefix}ViewOptions"),
            game_and_platform_options(
                &schemas[&format!("{prefix}Options")],
                &shown_options,
                name,
                true,
            ),
        );
        schemas.insert(
            format!("{prefix}LastResult"),
            json!({
                "description": format!("A finished hand of {name}: the platform's totals and the game's detail"),
                "type": "object",
                "properties": {
                    "hand_no": { "type": "integer", "minimum": 1 },
                    "points": { "description": "积分 change per seat", "type": "array", "items": { "type": "integer" } },
                    "coins": { "description": "each seat's net coin change", "type": "array", "items": { "type": "integer" } },
                    "detail": schema_ref(&format!("{prefix}ResultDetail")),
                    "room_coins": { "description": "at a coin room (金币场): each seat's coins won or lost, the stake times its units", "type": "array", "items": { "type": "integer" } },
                },
                "required": ["hand_no", "points", "coins", "detail"],
                "additionalProperties": false,
            }),
        );
        let mut view = base.clone();
        view["title"] = json!(format!("{prefix}MatchView"));
        view["description"] = json!(format!("A {name} match as one seat may see it"));
        let props = &mut view["properties"];
        props["game"] = json!({ "type": "string", "enum": [name] });
        props["options"] = schema_ref(&format!("{prefix}ViewOptions"));
        props["state"] = schema_ref(&format!("{prefix}State"));
        props["legal_actions"] = json!({
            "type": "array",
            "items": { "anyOf": [schema_ref(&format!("{prefix}LegalAction")), schema_ref("Resume")] },
        });
        props["last_result"] = json!({
            "oneOf": [{ "type": "null" }, schema_ref(&format!("{prefix}LastResult"))],
        });
        if let Some(example) = example_view(*game) {
            view["examples"] = json!([example]);
        }
        schemas.insert(format!("{prefix}MatchView"), view);
        let action =
            json!({ "anyOf": [schema_ref(&format!("{prefix}Action")), schema_ref("Resume")] });
        let view_options = schema_ref(&format!("{prefix}ViewOptions"));
        let create_options = game_and_platform_options(
            &schemas[&format!("{prefix}Options")],
            &shown_options,
            name,
            false,
        );
        schemas.insert(format!("{prefix}CreateOptions"), create_options);
        let hand = variant(
            schemas,
            "ReplayHand",
            &prefix,
            None,
            &[(
                "result",
                json!({ "oneOf": [{ "type": "null" }, schema_ref(&format!("{prefix}LastResult"))] }),
            )],
        );
        schemas.insert(format!("{prefix}ReplayHand"), hand);
        let replay_action = variant(
            schemas,
            "ReplayAction",
            &prefix,
            None,
            &[(
                "action",
                json!({ "oneOf": [{ "type": "null" }, action.clone()] }),
            )],
        );
        schemas.insert(format!("{prefix}ReplayAction"), replay_action);
        schemas[&format!("{prefix}ReplayHand")]["properties"]["actions"] =
            json!({ "type": "array", "items": schema_ref(&format!("{prefix}ReplayAction")) });
        let step = variant(
            schemas,
            "ReplayStep",
            &prefix,
            None,
            &[
                (
                    "action",
                    json!({ "oneOf": [{ "type": "null" }, action.clone()] }),
                ),
                ("view", schema_ref(&format!("{prefix}State"))),
            ],
        );
        schemas.insert(format!("{prefix}ReplayStep"), step);
        schemas[&format!("{prefix}ReplayHand")]["properties"]["steps"] = json!({
            "type": "array",
            "maxItems": crate::matches::steps::MAX_STEPS,
            "items": schema_ref(&format!("{prefix}ReplayStep")),
        });
        for (base, props) in [
            ("Hint", vec![("action", action.clone())]),
            ("OpenMatch", vec![("options", view_options.clone())]),
            (
                "CreateMatch",
                vec![("options", schema_ref(&format!("{prefix}CreateOptions")))],
            ),
            (
                "Replay",
                vec![
                    ("options", view_options.clone()),
                    (
                        "hands",
                        json!({ "type": "array", "items": schema_ref(&format!("{prefix}ReplayHand")) }),
                    ),
                ],
            ),
        ] {
            let v = variant(schemas, base, &prefix, Some(name), &props);
            schemas.insert(format!("{prefix}{base}"), v);
        }
        views.push(prefix.clone());
        actions.push(schema_ref(&format!("{prefix}Action")));
        event_pages.push(prefix.clone());
        let events = game_events(schemas, &event_base, &prefix, name, &kinds);
        schemas.insert(format!("{prefix}Event"), events);
        let page = event_page(&schemas["EventPage"], &prefix, name);
        schemas.insert(format!("{prefix}EventPage"), page);
    }
    schemas.insert(
        "MatchView".into(),
        discriminated(&views, "MatchView", "game"),
    );
    for base in ["Hint", "OpenMatch", "CreateMatch", "Replay"] {
        schemas.insert(base.into(), discriminated(&views, base, "game"));
    }
    for base in ["ReplayHand", "ReplayAction", "ReplayStep"] {
        schemas.remove(base);
    }
    schemas.insert(
        "EventPage".into(),
        discriminated(&event_pages, "EventPage", "game"),
    );
    schemas.remove("Event");
    schemas.insert(
        "AnyAction".into(),
        json!({
            "description": "An action of the match's game (see `<Game>Action` and the view's legal_actions), or resume",
            "anyOf": actions,
        }),
    );
    stream_events(
        doc["components"]["schemas"]
            .as_object_mut()
            .expect("schemas"),
    );
    let example = doc["components"]["schemas"]["DazhaMatchView"]["examples"][0].clone();
    views_have_an_example(doc, &example);
}

/// A real view of `game` for the document: seat 0's at the first deal of a fixed shuffle,
/// rendered by the game's engine as the server renders it (the tests check every example
/// against its schema).
fn example_view(game: &dyn games::DynGame) -> Option<Value> {
    use games::engine::{Ctx, HandStart};
    let seats = game
        .table_size()
        .unwrap_or(4)
        .clamp(*game.seats().start(), *game.seats().end());
    let (platform, raw) = crate::matches::options::PlatformOptions::split(None).ok()?;
    let options = game.options(seats, &raw).ok()?;
    let mut state = game.new_match(&options, seats).ok()?;
    let mut deck = game.deck(&options).ok()?;
    games::shuffle::shuffle(&mut deck, &[7; 32]);
    state.start_hand(HandStart {
        deck,
        ctx: Ctx {
            now_ms: 1_795_428_000_000,
        },
        wallets: vec![1000; seats],
        scores: vec![0; seats],
    });
    let view = state.view(Some(0));
    let names = ["alice", "bob", "carol", "dave", "erin", "frank"];
    let seat_list: Vec<Value> = (0..seats)
        .map(|i| {
            json!({
                "seat": i, "user_id": uuid::Uuid::from_u128(i as u128 + 1), "username": names[i % names.len()],
                "coins_at_table": view.coins_at_table.get(i).copied().flatten(), "auto": false, "bot": i > 0,
            })
        })
        .collect();
    let legal: Vec<Value> = state
        .legal_actions(0)
        .iter()
        .filter_map(|a| serde_json::from_str(a.get()).ok())
        .collect();
    let to_act = if state.to_act_hidden() {
        state.to_act().into_iter().filter(|s| *s == 0).collect()
    } else {
        state.to_act()
    };
    Some(json!({
        "id": uuid::Uuid::from_u128(0x3e2d_1c0b_9a8f_4e7d_8c6b_5a4f_3e2d_1c0b),
        "game": game.name(),
        "status": "playing",
        "version": 6,
        "options": platform.merge_into(options),
        "seats": seat_list,
        "you": { "seat": 0 },
        "hand_no": state.hand_no(),
        "phase": state.phase(),
        "to_act": to_act,
        "deadline": "2026-11-23T10:15:20Z",
        "legal_actions": legal,
        "shuffle_commitment": games::shuffle::commitment(&[7; 32]),
        "tournament_id": null,
        "tournament": null,
        "state": serde_json::from_str::<Value>(view.state.get()).ok()?,
        "last_result": null,
    }))
}

/// `StreamEvent`: what each `event:` of `GET /v1/me/stream` carries as its `data:` line, told
/// apart by `event`. The stream adds `at` (when the notice was recorded) to the player's
/// notices as it sends them (`matches::stream`).
fn stream_events(schemas: &mut Map<String, Value>) {
    let events = [
        ("hello", "StreamHello", false),
        ("match", "StreamMatch", false),
        ("seated", "StreamSeated", true),
        ("tournament_table", "StreamTournamentTable", true),
        ("eliminated", "StreamEliminated", true),
        ("tournament_finished", "StreamTournamentFinished", true),
        ("rematch", "StreamRematch", true),
    ];
    let mut variants = Vec::new();
    let mut mapping = Map::new();
    for (event, data, notice) in events {
        if notice {
            let s = &mut schemas[data];
            s["properties"]["at"] = json!({
                "description": "when the notice was recorded",
                "type": "string",
                "format": "date-time",
            });
            if let Some(required) = s["required"].as_array_mut() {
                required.push(json!("at"));
            }
        }
        let name = format!("{data}Event");
        schemas.insert(
            name.clone(),
            json!({
                "description": format!("the stream's `{event}` event"),
                "type": "object",
                "properties": {
                    "event": { "type": "string", "enum": [event] },
                    "data": schema_ref(data),
                },
                "required": ["event", "data"],
            }),
        );
        mapping.insert(event.into(), json!(format!("#/components/schemas/{name}")));
        variants.push(schema_ref(&name));
    }
    schemas.insert(
        "StreamEvent".into(),
        json!({
            "description": "One event of GET /v1/me/stream: its `event:` name and its `data:` line (JSON)",
            "oneOf": variants,
            "discriminator": { "propertyName": "event", "mapping": mapping },
        }),
    );
}

/// Every response that is a `MatchView` shows `example` (a 打炸 view).
fn views_have_an_example(doc: &mut Value, example: &Value) {
    let view = schema_ref("MatchView");
    for op in operations(doc) {
        let responses = op["responses"].as_object_mut().into_iter().flatten();
        for (_, r) in responses {
            if let Some(c) = r.pointer_mut("/content/application~1json")
                && c["schema"] == view
            {
                c["example"] = example.clone();
            }
        }
    }
}

/// A `oneOf` of every game's `<Game><part>`, told apart by `property`.
fn discriminated(prefixes: &[String], part: &str, property: &str) -> Value {
    let mapping: Map<String, Value> = games::all()
        .iter()
        .zip(prefixes)
        .map(|(g, p)| {
            (
                g.name().to_string(),
                json!(format!("#/components/schemas/{p}{part}")),
            )
        })
        .collect();
    json!({
        "oneOf": prefixes.iter().map(|p| schema_ref(&format!("{p}{part}"))).collect::<Vec<_>>(),
        "discriminator": { "propertyName": property, "mapping": mapping },
    })
}

/// A game's copy of the platform's schema `base`: titled `<Game><base>`, its `game` that game
/// alone, and `props` typed for it.
fn variant(
    schemas: &Map<String, Value>,
    base: &str,
    prefix: &str,
    game: Option<&str>,
    props: &[(&str, Value)],
) -> Value {
    let mut v = schemas[base].clone();
    v["title"] = json!(format!("{prefix}{base}"));
    if let Some(game) = game {
        v["properties"]["game"] = json!({ "type": "string", "enum": [game] });
    }
    for (k, x) in props {
        v["properties"][*k] = x.clone();
    }
    v
}

/// A game's options beside the platform's: as a view shows them (`shown`: the platform's
/// required ones required), or as a new match may be given them (all optional).
fn game_and_platform_options(game: &Value, platform: &Value, name: &str, shown: bool) -> Value {
    let mut props = game["properties"].as_object().cloned().unwrap_or_default();
    for (k, v) in platform["properties"].as_object().into_iter().flatten() {
        props.insert(k.clone(), v.clone());
    }
    let (what, required) = if shown {
        ("The options of a", platform["required"].clone())
    } else {
        ("Options of a new", json!([]))
    };
    json!({
        "description": format!("{what} {name} match: the game's (docs/rules/{name}.md) and the platform's"),
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    })
}

/// Every event of a game's log: its engine's kinds and the platform's, by `type`.
fn game_events(
    schemas: &mut Map<String, Value>,
    base: &Value,
    prefix: &str,
    game: &str,
    engine_kinds: &[&str],
) -> Value {
    use crate::matches::table::events;
    let mut kinds: Vec<(String, Value)> = events::schemas()
        .into_iter()
        .map(|(kind, schema)| (kind.to_string(), schema))
        .collect();
    kinds.push((
        events::HAND_ENDED.to_string(),
        schema_ref(&format!("{prefix}LastResult")),
    ));
    for kind in engine_kinds {
        let data = schema_ref(&format!("{prefix}{}Data", capitalized_words(kind)));
        match kinds.iter_mut().find(|(k, _)| k.as_str() == *kind) {
            Some((_, shared)) => *shared = json!({ "anyOf": [shared.clone(), data] }),
            None => kinds.push((kind.to_string(), data)),
        }
    }
    kinds.sort_by(|a, b| a.0.cmp(&b.0));
    let mut variants = Vec::new();
    let mut mapping = Map::new();
    for (kind, data) in kinds {
        let name = format!("{prefix}{}Event", capitalized_words(&kind));
        let mut event = base.clone();
        event["title"] = json!(name);
        event["properties"]["type"] = json!({ "type": "string", "enum": [kind] });
        event["properties"]["data"] = data;
        schemas.insert(name.clone(), event);
        mapping.insert(kind, json!(format!("#/components/schemas/{name}")));
        variants.push(schema_ref(&name));
    }
    json!({
        "description": format!("An event of a {game} match"),
        "oneOf": variants,
        "discriminator": { "propertyName": "type", "mapping": mapping },
    })
}

fn event_page(base: &Value, prefix: &str, game: &str) -> Value {
    let mut page = base.clone();
    page["title"] = json!(format!("{prefix}EventPage"));
    page["properties"]["game"] = json!({ "type": "string", "enum": [game] });
    page["properties"]["events"] =
        json!({ "type": "array", "items": schema_ref(&format!("{prefix}Event")) });
    page
}

/// Adds a game's schemars schema as component `name`, its shared definitions lifted to
/// `<Game>_<Def>`, and the titles schemars gives (the Rust type's name, the same in every
/// game) replaced by the component's name.
fn lift(schemas: &mut Map<String, Value>, prefix: &str, name: &str, schema: Value) {
    let mut schema = string_enums(retarget(schema, prefix));
    if let Some(defs) = schema.as_object_mut().and_then(|o| o.remove("$defs")) {
        for (def, mut s) in defs.as_object().cloned().into_iter().flatten() {
            let def_name = format!("{prefix}_{def}");
            s["title"] = json!(def_name);
            schemas.insert(def_name, s);
        }
    }
    if let Some(o) = schema.as_object_mut() {
        o.remove("$schema");
        o.insert("title".into(), json!(name));
    }
    schemas.insert(name.to_string(), schema);
}

fn capitalized(name: &str) -> String {
    let mut c = name.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// `hand_started` → `HandStarted`.
fn capitalized_words(kind: &str) -> String {
    kind.split('_').map(capitalized).collect()
}

/// schemars writes an enum whose variants carry doc comments as a `oneOf` of string `const`s;
/// clients generate better from one `enum` (openapi-python-client, for one, accepts only the
/// first `const` of such a `oneOf`). Each value's doc moves into the description.
fn string_enums(v: Value) -> Value {
    match v {
        Value::Object(mut o) => {
            let values: Option<Vec<(Value, Option<Value>)>> = o
                .get("oneOf")
                .and_then(Value::as_array)
                .and_then(|members| {
                    let mut all = Vec::new();
                    for m in members {
                        if m["type"] != "string" {
                            return None;
                        }
                        let doc = m.get("description").cloned();
                        if let Some(c) = m.get("const") {
                            all.push((c.clone(), doc));
                        } else if let Some(e) = m["enum"].as_array() {
                            all.extend(e.iter().map(|c| (c.clone(), doc.clone())));
                        } else {
                            return None;
                        }
                    }
                    Some(all)
                });
            if let Some(values) = values {
                o.remove("oneOf");
                let docs: Vec<String> = values
                    .iter()
                    .filter_map(|(c, d)| {
                        Some(format!("`{}`: {}", c.as_str()?, d.as_ref()?.as_str()?))
                    })
                    .collect();
                if !docs.is_empty() {
                    let before = o
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let text = before
                        .into_iter()
                        .chain(docs)
                        .collect::<Vec<_>>()
                        .join("\n\n");
                    o.insert("description".into(), json!(text));
                }
                o.insert("type".into(), json!("string"));
                o.insert(
                    "enum".into(),
                    Value::Array(values.into_iter().map(|(c, _)| c).collect()),
                );
                return Value::Object(o);
            }
            Value::Object(o.into_iter().map(|(k, x)| (k, string_enums(x))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(string_enums).collect()),
        other => other,
    }
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
