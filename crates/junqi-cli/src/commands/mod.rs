pub mod apply;
pub mod bench;
pub mod moves;
pub mod perft;
pub mod random_game;
pub mod show;
