//! What a thread keeps from one request to the next, so that work a request repeats is
//! done once: the last text it was given and, once the same text came twice running, what
//! was made from it (the URL parser's result, an `http::Uri`).
//!
//! A value is kept only on the second sighting of its text, so that text seen once costs a
//! copy of its bytes into room the thread keeps, not a copy of the value too.

use std::cell::RefCell;
use std::thread::LocalKey;

/// The last text a thread was given, and the value kept for it.
pub(crate) struct LastText<T> {
    text: String,
    value: Option<T>,
}

impl<T> LastText<T> {
    /// Nothing kept yet.
    pub(crate) const fn new() -> LastText<T> {
        LastText {
            text: String::new(),
            value: None,
        }
    }

    /// The value kept for `text`, if `text` is the last text and a value was kept for it.
    #[inline]
    pub(crate) fn get(&self, text: &str) -> Option<&T> {
        self.value.as_ref().filter(|_| self.text == text)
    }

    /// Notes that `text` was given again, or for the first time: if it is the last text,
    /// keeps what `value` makes from it (`None`: nothing to keep, and what was kept goes);
    /// else `text` replaces the last text, with no value, when it is at most `max` bytes
    /// long, and nothing changes when it is longer.
    pub(crate) fn note(&mut self, text: &str, max: usize, value: impl FnOnce() -> Option<T>) {
        if self.text == text {
            self.value = value();
        } else if text.len() <= max {
            self.text.clear();
            self.text.push_str(text);
            self.value = None;
        }
    }

    /// The last text, and the value kept for it.
    #[cfg(test)]
    pub(crate) fn parts(&self) -> (&str, Option<&T>) {
        (&self.text, self.value.as_ref())
    }
}

/// `f` on this thread's `slot`; `None` while the thread's storage is being torn down, or
/// (never) when the slot is borrowed already, so that the caller does the work itself.
#[inline]
pub(crate) fn with_slot<S: 'static, R>(
    slot: &'static LocalKey<RefCell<S>>,
    f: impl FnOnce(&mut S) -> R,
) -> Option<R> {
    slot.try_with(|slot| slot.try_borrow_mut().ok().map(|mut slot| f(&mut slot)))
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_kept_on_the_second_sighting_of_its_text() {
        let mut last = LastText::new();
        last.note("a", 8, || Some(1));
        assert_eq!(last.parts(), ("a", None));
        last.note("a", 8, || Some(2));
        assert_eq!(last.parts(), ("a", Some(&2)));
        assert_eq!(last.get("a"), Some(&2));
        assert_eq!(last.get("b"), None);
        // Nothing to keep: what was kept goes.
        last.note("a", 8, || None);
        assert_eq!(last.parts(), ("a", None));
        // Another text replaces it; one too long changes nothing.
        last.note("b", 8, || Some(3));
        assert_eq!(last.parts(), ("b", None));
        last.note("too long!", 8, || Some(4));
        assert_eq!(last.parts(), ("b", None));
    }

    #[test]
    fn a_slot_borrowed_already_is_not_given_out() {
        thread_local! {
            static SLOT: RefCell<u32> = const { RefCell::new(0) };
        }
        let nested = with_slot(&SLOT, |outer| {
            *outer += 1;
            with_slot(&SLOT, |inner| *inner)
        });
        assert_eq!(nested, Some(None));
        assert_eq!(with_slot(&SLOT, |slot| *slot), Some(1));
    }
}
