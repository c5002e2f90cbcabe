//! Every SQL statement the server can send is prepared against the migrated schema, so a
//! statement that does not parse, names a column that is not there or mistypes a parameter
//! fails here, not in front of the first player whose move takes that shape.
//!
//! The statements are read out of the service's source (`src/**/*.rs`): every call of
//! `query`, `query_as` or `query_scalar` whose text is a literal, or a `format!` of literals
//! and `&str` constants. A call whose text is built at run time must be one of `BUILT`, whose
//! shapes the service enumerates itself (`matches::table::statements`,
//! `ledger::TRANSFER_SQL`);
//! a new one fails this test until it is added there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sqlx::Executor;
use syn::visit::Visit;

use crate::helpers::{spawn_app, spawn_app_with};

/// The calls whose text the service builds at run time: (file, function, how many such calls
/// it makes), each covered by the service's own enumeration of what it builds.
const BUILT: &[(&str, &str, usize)] = &[
    ("src/ledger.rs", "transfer", 1),
    ("src/matches/table/store.rs", "fetch", 1),
    ("src/matches/table/write.rs", "save_many", 1),
];

/// The calls of `raw_sql` (several statements at once, which cannot be prepared, reading no
/// table of the schema): a database's creation and the moves' connections' settings.
const RAW: &[(&str, &str)] = &[
    ("src/db.rs", "create_database_if_missing"),
    ("src/db.rs", "acquire"),
];

/// Ways to send SQL that this reader does not follow: none of them may appear in the service.
const UNREAD: [&str; 5] = [
    "query_with",
    "query_as_with",
    "query_scalar_with",
    "QueryBuilder",
    "query_file",
];

/// The calls that send one statement.
const QUERY_FUNCTIONS: [&str; 3] = ["query", "query_as", "query_scalar"];

/// The executor's methods that take a statement's text themselves.
const EXECUTOR_METHODS: [&str; 6] = [
    "execute",
    "fetch",
    "fetch_all",
    "fetch_one",
    "fetch_optional",
    "prepare",
];

#[derive(Default)]
struct Found {
    /// (file, function) → the statements read there.
    statements: Vec<(String, String, String)>,
    /// (file, function) of calls whose text is built at run time.
    built: Vec<(String, String)>,
    /// (file, function) of `raw_sql` calls.
    raw: Vec<(String, String)>,
    /// Where SQL is sent in a way this reader does not follow (inside a macro, a builder).
    unread: Vec<String>,
}

struct Reader<'a> {
    file: String,
    function: String,
    constants: &'a BTreeMap<String, String>,
    found: &'a mut Found,
}

impl Reader<'_> {
    /// The text of a literal, or of `format!`/`AssertSqlSafe(format!(…))` over literals and
    /// constants named inline (`{NAME}`); `None` for anything built otherwise.
    fn text(&self, expr: &syn::Expr) -> Option<String> {
        match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            syn::Expr::Call(call) if call.args.len() == 1 => self.text(&call.args[0]),
            syn::Expr::Macro(m) if m.mac.path.is_ident("format") => {
                let lit: syn::LitStr = m.mac.parse_body().ok()?;
                self.interpolate(&lit.value())
            }
            syn::Expr::Group(g) => self.text(&g.expr),
            syn::Expr::Paren(p) => self.text(&p.expr),
            _ => None,
        }
    }

    /// `template` with each `{NAME}` replaced by the constant's text; `None` when a
    /// placeholder is not a known constant.
    fn interpolate(&self, template: &str) -> Option<String> {
        let mut out = String::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let close = rest[open..].find('}')? + open;
            out.push_str(self.constants.get(&rest[open + 1..close])?);
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        Some(out)
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let outer = std::mem::replace(&mut self.function, f.sig.ident.to_string());
        syn::visit::visit_item_fn(self, f);
        self.function = outer;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let outer = std::mem::replace(&mut self.function, f.sig.ident.to_string());
        syn::visit::visit_impl_item_fn(self, f);
        self.function = outer;
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // The service's unit tests send statements of their own making.
        let tests = m.attrs.iter().any(|a| {
            a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
        });
        if !tests {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // A macro's body is tokens, not read as code: a statement sent from inside one
        // (`tokio::join!`, `vec![]`, …) would go unseen.
        let mut names = QUERY_FUNCTIONS.iter().chain(&UNREAD).chain(&["raw_sql"]);
        if let Some(name) = names.find(|n| names_ident(m.tokens.clone(), n)) {
            self.found.unread.push(format!(
                "{} {}: `{name}` inside a macro",
                self.file, self.function
            ));
        }
        syn::visit::visit_macro(self, m);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if EXECUTOR_METHODS.contains(&call.method.to_string().as_str())
            && let Some(arg) = call.args.first()
            && let Some(sql) = self.text(arg)
        {
            self.found
                .statements
                .push((self.file.clone(), self.function.clone(), sql));
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if let Some(last) = path.segments.last()
            && UNREAD.contains(&last.ident.to_string().as_str())
        {
            self.found
                .unread
                .push(format!("{} {}: `{}`", self.file, self.function, last.ident));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*call.func
            && p.path.segments.last().is_some_and(|l| l.ident == "raw_sql")
        {
            self.found
                .raw
                .push((self.file.clone(), self.function.clone()));
        } else if let syn::Expr::Path(p) = &*call.func
            && let Some(last) = p.path.segments.last()
            && QUERY_FUNCTIONS.contains(&last.ident.to_string().as_str())
            && let Some(arg) = call.args.first()
        {
            match self.text(arg) {
                Some(sql) => {
                    self.found
                        .statements
                        .push((self.file.clone(), self.function.clone(), sql))
                }
                None => self
                    .found
                    .built
                    .push((self.file.clone(), self.function.clone())),
            }
        }
        syn::visit::visit_expr_call(self, call);
    }
}

/// Whether `tokens` hold the identifier `name` (not inside a string).
fn names_ident(tokens: proc_macro2::TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => names_ident(g.stream(), name),
        _ => false,
    })
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("reading src") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `const NAME: &str = "…";` of every file (a name defined twice must be defined alike).
fn constants(files: &[(String, syn::File)]) -> BTreeMap<String, String> {
    let mut all = BTreeMap::new();
    for (name, file) in files {
        for item in &file.items {
            if let syn::Item::Const(c) = item
                && let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &*c.expr
                && let Some(before) = all.insert(c.ident.to_string(), s.value())
            {
                assert_eq!(before, s.value(), "{name}: {} defined twice", c.ident);
            }
        }
    }
    all
}

fn read_service() -> Found {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    sources(&root.join("src"), &mut paths);
    paths.sort();
    let files: Vec<(String, syn::File)> = paths
        .iter()
        .map(|p| {
            let name = p
                .strip_prefix(root)
                .expect("under the crate")
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(p).expect("reading a source file");
            let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, file)
        })
        .collect();
    let constants = constants(&files);
    let mut found = Found::default();
    for (name, file) in &files {
        Reader {
            file: name.clone(),
            function: String::new(),
            constants: &constants,
            found: &mut found,
        }
        .visit_file(file);
    }
    found
}

#[tokio::test]
async fn every_statement_the_server_sends_prepares_against_the_schema() {
    let found = read_service();
    assert!(
        found.statements.len() > 80,
        "the reader finds the service's statements (found {})",
        found.statements.len()
    );
    assert!(
        found.unread.is_empty(),
        "SQL sent where this test cannot read it (send it through a plain call of query, \
         query_as or query_scalar): {:?}",
        found.unread
    );
    let mut built: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (file, function) in &found.built {
        *built.entry((file, function)).or_default() += 1;
    }
    let listed: BTreeMap<(&str, &str), usize> =
        BUILT.iter().map(|&(f, func, n)| ((f, func), n)).collect();
    assert_eq!(
        built, listed,
        "the calls whose statements are built at run time: a new one needs its shapes in the \
         service's enumeration (matches::table::statements) and its site in BUILT"
    );
    let raw: Vec<(&str, &str)> = found
        .raw
        .iter()
        .map(|(f, func)| (f.as_str(), func.as_str()))
        .collect();
    assert_eq!(
        raw, RAW,
        "raw_sql is for settings and a database's creation only"
    );

    let mut all: Vec<(String, String)> = found
        .statements
        .into_iter()
        .map(|(file, function, sql)| (format!("{file} {function}"), sql))
        .collect();
    let table = paiju::matches::table::statements();
    for sql in table.loads {
        all.push(("matches::table::statements".into(), sql.to_string()));
    }
    all.push((
        "ledger::TRANSFER_SQL".into(),
        paiju::ledger::TRANSFER_SQL.clone(),
    ));

    let app = spawn_app().await;
    let mut conn = app.pool.acquire().await.expect("a connection");
    let mut failures = Vec::new();
    // The writer binds every parameter whatever its parts: each of its statements is
    // prepared with the parameter types of the one with every part.
    let types = match (&mut *conn)
        .describe(sqlx::SqlSafeStr::into_sql_str(table.writes[0]))
        .await
    {
        Ok(described) => match described.parameters() {
            Some(sqlx::Either::Left(types)) => types.to_vec(),
            other => panic!("the writer's parameters are described by type: {other:?}"),
        },
        Err(e) => panic!("the writer's statement with every part: {e}"),
    };
    for sql in &table.writes {
        if let Err(e) = (&mut *conn)
            .prepare_with(sqlx::SqlSafeStr::into_sql_str(*sql), &types)
            .await
        {
            failures.push(format!("matches::table::statements (writer): {e}"));
        }
    }
    let all_count = all.len() + table.writes.len();
    for (site, sql) in &all {
        if let Err(e) = (&mut *conn)
            .prepare(sqlx::SqlSafeStr::into_sql_str(sqlx::AssertSqlSafe(
                sql.clone(),
            )))
            .await
        {
            let start: String = sql
                .split_whitespace()
                .take(12)
                .collect::<Vec<_>>()
                .join(" ");
            failures.push(format!("{site}: {e}\n    {start} …"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} statements do not prepare:\n{}",
        failures.len(),
        all_count,
        failures.join("\n")
    );
}

/// The plan PostgreSQL runs for `sql` on `conn` when it plans once for any values (the move
/// connections' `plan_cache_mode`): the statement prepared (with `types`, or the types it
/// names itself when `None`) and explained for NULL arguments, checked to be the plan made
/// once and not one made for those NULLs.
async fn generic_plan(
    conn: &mut sqlx::PgConnection,
    sql: &str,
    types: Option<&[String]>,
) -> String {
    let params = match types {
        Some(types) => types.len(),
        None => (1..=100)
            .rev()
            .find(|n| sql.contains(&format!("${n}")))
            .unwrap_or(0),
    };
    let prepare = match types {
        Some(types) => format!("PREPARE planned ({}) AS {sql}", types.join(", ")),
        None => format!("PREPARE planned AS {sql}"),
    };
    let explain = format!(
        "EXPLAIN EXECUTE planned ({})",
        vec!["NULL"; params].join(", ")
    );
    sqlx::raw_sql(sqlx::AssertSqlSafe(prepare))
        .execute(&mut *conn)
        .await
        .unwrap_or_else(|e| panic!("{e}: {sql}"));
    let rows = sqlx::raw_sql(sqlx::AssertSqlSafe(explain))
        .fetch_all(&mut *conn)
        .await
        .unwrap_or_else(|e| panic!("{e}: {sql}"));
    let plans: (i64, i64) = sqlx::query_as(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'planned'",
    )
    .fetch_one(&mut *conn)
    .await
    .unwrap();
    assert_eq!(plans, (1, 0), "the plan made once is explained: {sql}");
    sqlx::raw_sql("DEALLOCATE planned")
        .execute(&mut *conn)
        .await
        .unwrap();
    rows.iter()
        .map(|r| sqlx::Row::get::<String, _>(r, 0))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The scans of `plan` that read a whole table or a whole index: a `Seq Scan`, or an index
/// scan without an `Index Cond` (the house's partial index, one row, excepted).
fn whole_scans(plan: &str) -> Vec<String> {
    let lines: Vec<&str> = plan.lines().collect();
    let mut whole = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.contains("Seq Scan") {
            whole.push(line.trim().to_string());
        } else if line.contains("Index Scan") || line.contains("Index Only Scan") {
            let depth = line.len() - line.trim_start().len();
            let cond = lines[i + 1..]
                .iter()
                .take_while(|l| !l.trim_start().starts_with("->") && !l.trim_start().is_empty())
                .take_while(|l| l.len() - l.trim_start().len() > depth)
                .any(|l| l.contains("Index Cond"));
            if !cond && !line.contains("accounts_one_house") {
                whole.push(line.trim().to_string());
            }
        }
    }
    whole
}

/// The other statements a move's connection sends (a move's transaction): (file, function),
/// each with at least one statement. Kept by hand; `every_statement_the_moves_connections_
/// prepared_is_one_whose_plan_is_checked` fails on a statement the move connections prepared
/// in the tables it plays that is not here (a tournament's table is not among them).
const MOVE_SITES: [(&str, &str); 4] = [
    ("src/idempotency.rs", "claim"),
    ("src/idempotency.rs", "answer"),
    ("src/players.rs", "escaped_tournament"),
    ("src/ledger.rs", "lock_purses"),
];

/// Every statement a move's connection may send, each with the parameter types it is
/// prepared with when it does not name them all itself: the writer's statements (every
/// combination of parts), the table's loads, and the rest of a move's transaction
/// ([`MOVE_SITES`]).
async fn moves_statements(conn: &mut sqlx::PgConnection) -> Vec<(String, Option<Vec<String>>)> {
    let table = paiju::matches::table::statements();
    let described = (&mut *conn)
        .describe(sqlx::SqlSafeStr::into_sql_str(table.writes[0]))
        .await
        .expect("the writer's statement with every part");
    let writer: Vec<String> = match described.parameters() {
        Some(sqlx::Either::Left(types)) => types
            .iter()
            .map(|t| sqlx::TypeInfo::name(t).to_string())
            .collect(),
        other => panic!("the writer's parameters are described by type: {other:?}"),
    };
    let mut statements: Vec<(String, Option<Vec<String>>)> = table
        .writes
        .iter()
        .map(|sql| (sql.to_string(), Some(writer.clone())))
        .collect();
    for sql in table.loads {
        statements.push((sql.to_string(), None));
    }
    let found = read_service();
    for (file, function) in MOVE_SITES {
        let before = statements.len();
        for (f, func, sql) in &found.statements {
            if f == file && func == function {
                statements.push((sql.clone(), None));
            }
        }
        assert!(
            statements.len() > before,
            "no statement in {file} {function}"
        );
    }
    statements
}

/// Every statement a move's connection plans once for all values (`db::MoveConns`:
/// `plan_cache_mode = force_generic_plan`) reaches its rows through index conditions in that
/// one plan (no sequential scan, no index read whole), on the fresh schema where tables are
/// empty and a scan looks cheapest: those of [`moves_statements`].
#[tokio::test]
async fn the_moves_statements_planned_once_reach_their_rows_by_key() {
    let app = spawn_app().await;
    let conns = paiju::db::MoveConns::new(app.pool.clone(), 1);
    let mut conn = conns.acquire().await.expect("a move's connection");
    let statements = moves_statements(&mut conn).await;
    let mut failures = Vec::new();
    for (sql, types) in &statements {
        let plan = generic_plan(&mut conn, sql, types.as_deref()).await;
        let whole = whole_scans(&plan);
        if !whole.is_empty() {
            let start: String = sql.split_whitespace().take(8).collect::<Vec<_>>().join(" ");
            failures.push(format!("{start} …: {whole:?}\n{plan}"));
        }
    }
    conn.release();
    assert!(
        failures.is_empty(),
        "{} of {} statements scan a whole table or index when planned once:\n{}",
        failures.len(),
        statements.len(),
        failures.join("\n\n")
    );
}

/// What the server's own move connections prepared while tables were played out is all among
/// [`moves_statements`], whose plans the test above checks: a statement added to the path of
/// the moves played here (and prepared, as every `query` is; a `raw_sql` is not seen) fails
/// here until it is listed there, in [`MOVE_SITES`] or the writer's and loads' own
/// enumeration. Played on two servers, one
/// committing moves by one statement and one taking a transaction for every move: 打炸 with
/// an Idempotency-Key on every move (the key's claim and answer, hand ends and the deals after
/// them) and 扯旋 (stakes from wallets, and deals that read them).
#[tokio::test]
async fn every_statement_the_moves_connections_prepared_is_one_whose_plan_is_checked() {
    let fast = spawn_app().await;
    let url = crate::helpers::fresh_database().await;
    let transactional = spawn_app_with(move |c| {
        c.database_url = Some(url);
        c.fast_moves = false;
    })
    .await;
    const PREPARED: &str = "SELECT statement FROM pg_prepared_statements WHERE NOT from_sql";
    let table = paiju::matches::table::statements();
    let mut prepared = std::collections::BTreeSet::new();
    let mut checked = std::collections::BTreeSet::new();
    for (app, name, fast_moves) in [
        (&fast, "one statement", true),
        (&transactional, "transactional", false),
    ] {
        let (id, players) = crate::one_trip::seeded_table(app, 2, "sp").await;
        crate::one_trip::play_out(app, &id, &players, true).await;
        let (id, players) = crate::one_trip::staking_table(app, 2, "sq").await;
        crate::one_trip::play_out(app, &id, &players, false).await;

        let conns = app.move_conns.clone().expect("a server in this process");
        let mut held = Vec::new();
        for _ in 0..conns.idle() {
            held.push(conns.acquire().await.expect("a move's connection"));
        }
        assert!(
            !held.is_empty(),
            "the {name} server kept its move connections"
        );
        let mut sent = std::collections::BTreeSet::new();
        for conn in &mut held {
            let texts: Vec<String> = sqlx::query_scalar(PREPARED)
                .fetch_all(&mut **conn)
                .await
                .unwrap();
            sent.extend(texts);
        }
        // The one-statement server's moves find their tables cached; the other's load them.
        let ran = [
            ("the writer", &table.writes[..], true),
            ("a load", &table.loads[..], !fast_moves),
        ];
        for (what, among, _) in ran.iter().filter(|r| r.2) {
            assert!(
                sent.iter().any(|sql| among.contains(&sql.as_str())),
                "{what} ran on the {name} server's move connections: {sent:#?}"
            );
        }
        prepared.extend(sent);
        checked.extend(
            moves_statements(&mut held[0])
                .await
                .into_iter()
                .map(|(sql, _)| sql),
        );
    }
    let unchecked: Vec<&String> = prepared
        .iter()
        .filter(|sql| !checked.contains(*sql) && *sql != PREPARED)
        .collect();
    assert!(
        unchecked.is_empty(),
        "{} statement(s) a move's connection sent are not among those whose plans are \
         checked (add their function to MOVE_SITES):\n{unchecked:#?}",
        unchecked.len()
    );
}
