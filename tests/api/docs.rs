//! The docs name what the code has: every ledger reason, every error code, every environment
//! variable the server reads. A test per list, so a new one cannot go undocumented (or a
//! removed one stay documented).

use std::collections::BTreeSet;

use paiju::config::Config;
use paiju::error::ApiError;
use paiju::ledger::Reason;

fn read(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `backticked` words of `text`.
fn quoted(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The text of `doc` from `start` up to the first line that does not continue the item.
fn item<'a>(doc: &'a str, start: &str) -> &'a str {
    let from = doc
        .find(start)
        .unwrap_or_else(|| panic!("the docs no longer say {start:?}"));
    let rest = &doc[from..];
    let end = rest[1..]
        .find("\n- ")
        .map_or(rest.len(), |i| i + 1)
        .min(rest.find("\n\n").unwrap_or(rest.len()));
    &rest[..end]
}

fn set<I: IntoIterator<Item = S>, S: ToString>(items: I) -> BTreeSet<String> {
    items.into_iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_docs_name_every_ledger_reason_and_no_other() {
    let code = set(Reason::ALL.map(Reason::as_str));
    let api = read("docs/api.md");
    let listed = quoted(item(&api, "- Ledger entries' `reason` is one of"));
    let listed: BTreeSet<String> = listed.into_iter().filter(|w| w != "reason").collect();
    assert_eq!(
        listed, code,
        "docs/api.md § Turn deadlines' list of reasons"
    );
    let ledger = read("docs/ledger.md");
    let reasons = &ledger[ledger
        .find("| reason | from → to | when |")
        .expect("docs/ledger.md's table of reasons")..];
    let table: BTreeSet<String> = reasons
        .lines()
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    assert_eq!(table, code, "docs/ledger.md's table of reasons");
}

#[test]
fn the_docs_name_every_error_code_and_no_other() {
    let mut code = set(ApiError::CODES);
    code.insert("internal".into());
    let api = read("docs/api.md");
    let contract = quoted(item(&api, "  Stable `code` values:"));
    let beyond = quoted(item(&api, "- Codes beyond the contract's:"));
    let named: BTreeSet<String> = contract
        .union(&beyond)
        .filter(|w| w.as_str() != "code")
        .cloned()
        .collect();
    assert_eq!(named, code, "docs/api.md's error codes");
}

#[test]
fn the_readme_names_every_environment_variable_the_server_reads() {
    let asked = std::cell::RefCell::new(BTreeSet::new());
    Config::from_lookup(|k| {
        asked.borrow_mut().insert(k.to_string());
        None
    })
    .expect("the defaults make a configuration");
    let mut read_by_server = asked.into_inner();
    read_by_server.extend(set(paiju::telemetry::VARIABLES));
    let readme = read("README.md");
    let section = &readme[readme
        .find("## Configuration")
        .expect("a configuration section")..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let table: BTreeSet<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    assert_eq!(table, read_by_server, "README.md § Configuration");
}

/// Each game's rules page lists every rule code its refusals may name (`## Refusals`).
#[test]
fn every_rules_page_lists_its_refusal_codes() {
    for game in games::all() {
        let path = format!(
            "{}/docs/rules/{}.md",
            env!("CARGO_MANIFEST_DIR"),
            game.name()
        );
        let page = std::fs::read_to_string(&path).unwrap();
        let refusals = page
            .split("## Refusals")
            .nth(1)
            .unwrap_or_else(|| panic!("{path} has no ## Refusals section"));
        let missing: Vec<&str> = game
            .rule_codes()
            .into_iter()
            .filter(|code| !refusals.contains(&format!("`{code}`")))
            .collect();
        assert!(missing.is_empty(), "{path} does not list {missing:?}");
    }
}
