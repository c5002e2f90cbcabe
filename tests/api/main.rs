//! Integration tests: the real HTTP server on a random port against a fresh PostgreSQL
//! database per test (the project-local cluster, or `DATABASE_URL`'s server).

mod accounts;
mod chehuzi;
mod chexuan;
mod contract;
mod conventions;
mod dazha;
mod defects;
mod docs;
mod faults;
mod games;
mod helpers;
mod leaderboards;
mod load;
mod money;
mod move_conns;
mod news;
mod one_trip;
mod openapi;
mod operators;
mod play;
mod players;
mod probe;
mod rematch;
mod replays;
mod rulings;
mod sandaha;
mod shengji;
mod statements;
mod tournaments;
