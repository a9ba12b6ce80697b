//! The closed loop's tests, one binary: `run_loop` end to end on tiny
//! configs (`training_loop`) and the SPRT gate's error rate (`gate`).

mod common;
mod exploit;
mod gate;
mod training_loop;
