//! The closed loop's tests, one binary: `run_loop` end to end on tiny
//! configs (`training_loop`, the four-player `siguo`) and the SPRT gate's error rate (`gate`).

mod common;
mod exploit;
mod gate;
mod siguo;
mod training_loop;
