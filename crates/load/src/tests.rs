use super::*;

fn parse(args: &[&str]) -> Args {
    Args::try_parse_from([&["paiju-load"], args].concat()).unwrap()
}

/// What `GET /v1/games` of a server of this build lists.
fn served() -> Vec<ServerGame> {
    games::all()
        .iter()
        .map(|g| ServerGame {
            name: g.name().into(),
            seats: api::Seats {
                min: *g.seats().start(),
                max: *g.seats().end(),
                default: g.table_size(),
            },
        })
        .collect()
}

/// The layout of `args` on a server of this build.
fn check(args: &Args) -> Result<Layout, String> {
    layout(args, &served())
}

/// The seats of each table `check` lays out.
fn tables(args: &[&str]) -> Result<Vec<usize>, String> {
    let l = check(&parse(args))?;
    Ok((0..l.tables.len()).map(|t| l.seats_of(t)).collect())
}

/// The games `check` lays out.
fn games_of(args: &[&str]) -> Vec<String> {
    check(&parse(args)).unwrap().games
}

#[test]
fn tables_must_be_whole_and_fit_the_game() {
    assert_eq!(tables(&[]), Ok(vec![4, 4]));
    assert_eq!(tables(&["--clients", "6", "--seats", "3"]), Ok(vec![3, 3]));
    assert!(check(&parse(&["--clients", "6"])).is_err());
    assert_eq!(
        tables(&["--clients", "6", "--drive", "table"]),
        Ok(vec![4; 6]),
        "a client per table plays any number of tables"
    );
    assert!(tables(&["--game", "dazha", "--seats", "3", "--clients", "6"]).is_err());
    assert!(tables(&["--seats", "7", "--clients", "7"]).is_err());
    assert!(
        tables(&["--game", "chexuan,dazha", "--seats", "3", "--clients", "6"]).is_err(),
        "every game must take the seats"
    );
    assert_eq!(games_of(&["--game", "chexuan,dazha"]), ["chexuan", "dazha"]);
    let all = parse(&["--game", "chexuan,dazha,shengji,sandaha", "--clients", "8"]);
    assert_eq!(
        check(&all).unwrap().games,
        ["chexuan", "dazha", "shengji", "sandaha"],
        "perf/run.sh's GAMES=chexuan,dazha,shengji,sandaha"
    );
    assert_eq!(check(&all).map(|l| l.tables), Ok(vec![0, 1]));
    assert!(
        tables(&[
            "--game",
            "chexuan,shengji",
            "--seats",
            "3",
            "--clients",
            "6"
        ])
        .is_err(),
        "升级 takes four seats"
    );
    assert!(check(&parse(&["--duration", "0"])).is_err());
    assert!(check(&parse(&["--admin", "nopassword"])).is_err());
}

#[test]
fn chehuzi_takes_three_seats_and_mixes_with_four_seat_games() {
    assert_eq!(
        tables(&["--game", "chehuzi", "--clients", "6"]),
        Ok(vec![3, 3])
    );
    assert!(tables(&["--game", "chehuzi", "--clients", "8"]).is_err());
    let e = tables(&["--game", "chehuzi", "--seats", "4"]).unwrap_err();
    assert_eq!(e, "chehuzi is played by 3 seats, not 4");
    let five = "chexuan,dazha,shengji,sandaha,chehuzi";
    assert_eq!(
        check(&parse(&["--game", five, "--clients", "8"])),
        Ok(Layout {
            games: five.split(',').map(String::from).collect(),
            seats: vec![4, 4, 4, 4, 3],
            tables: vec![0, 1]
        }),
        "perf/run.sh's GAMES with chehuzi, 8 clients per seat"
    );
    assert_eq!(
        tables(&["--game", five, "--clients", "19"]),
        Ok(vec![4, 4, 4, 4, 3])
    );
    assert_eq!(
        tables(&["--game", five, "--clients", "7", "--drive", "table"]),
        Ok(vec![4, 4, 4, 4, 3, 4, 4]),
        "a client per table: any count"
    );
    let e = tables(&["--game", five, "--clients", "32"]).unwrap_err();
    assert!(e.contains("31 or 35 clients would"), "{e}");
    assert_eq!(
        tables(&["--game", "chehuzi,chexuan", "--clients", "7"]),
        Ok(vec![3, 4])
    );
    assert!(
        tables(&["--game", "chehuzi,chexuan", "--clients", "2"])
            .unwrap_err()
            .contains("so 3 clients would")
    );
}

#[test]
fn the_games_are_the_servers() {
    let every: Vec<&str> = games::all().iter().map(|g| g.name()).collect();
    assert_eq!(games_of(&["--game", "all", "--drive", "table"]), every);
    assert_eq!(
        games_of(&["--game", "dazha,all", "--drive", "table"])[1..],
        every,
        "all is every game, in the server's order"
    );
    let e = check(&parse(&["--game", "chexuan,majiang"])).unwrap_err();
    assert_eq!(
        e,
        format!(
            "the server runs no game \"majiang\": its games are {} (or all)",
            every.join(", ")
        )
    );
    // A game this build has never heard of is laid out by the server's seat range.
    let new = ServerGame {
        name: "majiang".into(),
        seats: api::Seats {
            min: 2,
            max: 4,
            default: None,
        },
    };
    let offered = [served(), vec![new]].concat();
    let args = parse(&["--game", "majiang,chehuzi", "--clients", "7"]);
    let l = layout(&args, &offered).unwrap();
    assert_eq!(l.games, ["majiang", "chehuzi"]);
    assert_eq!(l.seats, [4, 3]);
    let args = parse(&["--game", "majiang", "--seats", "5", "--clients", "5"]);
    assert_eq!(
        layout(&args, &offered),
        Err("majiang is played by 2 to 4 seats, not 5".into())
    );
}

#[test]
fn urls_repeat() {
    let a = parse(&["--url", "http://127.0.0.1:1", "--url", "http://127.0.0.1:2"]);
    assert_eq!(a.urls, ["http://127.0.0.1:1", "http://127.0.0.1:2"]);
    assert_eq!(parse(&[]).urls, ["http://127.0.0.1:8080"]);
}
