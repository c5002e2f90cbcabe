//! JSON a table only keeps, writes and shows (the match's options, the last hand's result),
//! held as its text. A fork of the table shares it (a reference count, not a copy of a tree),
//! and a view or the writer's statement sends it as it is: as `Value`s they were copied into
//! every request's fork and serialised again into every view (docs/performance.md § A move's
//! CPU in the server, 2026-11-29). The text is always `Value`'s own (compact, keys in order),
//! also for a table loaded from the database, whose jsonb text is spaced and ordered
//! otherwise: a view's bytes do not depend on which process rendered it.

use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

#[derive(Clone, Debug)]
pub(super) struct Stored(Arc<RawValue>);

impl Stored {
    /// `value` as stored JSON.
    pub fn of(value: &Value) -> Stored {
        // A `Value` always serialises: its map keys are strings.
        Stored(Arc::from(
            serde_json::value::to_raw_value(value).expect("a Value serialises"),
        ))
    }

    /// The text, to bind or embed.
    pub fn raw(&self) -> &RawValue {
        &self.0
    }

    /// Parsed, for the one step that reads inside it: a deal reads the game's options.
    pub fn value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }
}

impl serde::Serialize for Stored {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stored_document_is_written_and_read_back_unchanged() {
        let v = json!({"ante": 10, "room": null, "名": "扯旋", "list": [1, "x\"y"]});
        let s = Stored::of(&v);
        assert_eq!(s.value().unwrap(), v);
        // Embedded in a document, it is the same JSON, not a string of it.
        let outer = serde_json::to_value(json!({"o": &s})).unwrap();
        assert_eq!(outer["o"], v);
        // Compact, keys in order, as the view showed a `Value`.
        assert_eq!(
            s.raw().get(),
            r#"{"ante":10,"list":[1,"x\"y"],"room":null,"名":"扯旋"}"#
        );
    }
}
