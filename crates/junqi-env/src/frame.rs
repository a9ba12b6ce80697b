//! The mover's frame: seat 2 sees the board rotated by 180°, so "my side" is
//! always at the bottom. Observations, masks and policy action ids all use it.

use junqi_core::{Move, Seat, Square, ACTIONS};

/// `sq` as `seat` sees it.
#[inline]
pub fn square_to_frame(sq: Square, seat: Seat) -> Square {
    match seat {
        Seat::First => sq,
        Seat::Second => sq.rotated(),
    }
}

/// The action id (`from * 60 + to`, in `seat`'s frame) of an absolute move.
#[inline]
pub fn action_to_frame(mv: Move, seat: Seat) -> usize {
    Move::new(square_to_frame(mv.from, seat), square_to_frame(mv.to, seat)).action_id()
}

/// The absolute move of an action id given in `seat`'s frame.
#[inline]
pub fn action_from_frame(id: usize, seat: Seat) -> Option<Move> {
    if id >= ACTIONS {
        return None;
    }
    let m = Move::from_action_id(id)?;
    // Rotation is its own inverse.
    Some(Move::new(square_to_frame(m.from, seat), square_to_frame(m.to, seat)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_rotate_seat_two() {
        let m: Move = "a1b2".parse().unwrap();
        assert_eq!(action_to_frame(m, Seat::First), m.action_id());
        let rotated = action_from_frame(action_to_frame(m, Seat::Second), Seat::First).unwrap();
        assert_eq!(rotated.to_string(), "e12d11");
        for id in 0..ACTIONS {
            for seat in Seat::BOTH {
                let mv = action_from_frame(id, seat).unwrap();
                assert_eq!(action_to_frame(mv, seat), id);
            }
        }
        assert_eq!(action_from_frame(ACTIONS, Seat::First), None);
    }
}
