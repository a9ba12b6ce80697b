//! Tests of docs/rules.md §10 (四国军棋), clause by clause, against a slow
//! reference move generator, and properties of random games.

mod belief;
mod board;
mod bots;
mod code;
mod common;
mod deploy;
mod game;
mod infoset;
mod movement;
mod observation;
mod perft_table;
mod props;
mod reference;
mod reference_check;
mod rules_files;
mod search;
