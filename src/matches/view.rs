//! A match view (api.md § The match view) rendered once to JSON text: the body of a response,
//! the `view` of a 409 problem, or a stored idempotent answer, without a `Value` tree between
//! the table and the bytes.

use std::fmt;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use uuid::Uuid;

#[derive(Clone)]
pub struct View {
    id: Uuid,
    version: i64,
    json: Box<RawValue>,
}

impl View {
    /// Renders `body`, the view of match `id` at `version`.
    pub fn render(id: Uuid, version: i64, body: &impl Serialize) -> View {
        View {
            id,
            version,
            json: serde_json::value::to_raw_value(body).expect("views serialize to JSON"),
        }
    }

    /// A view stored earlier as JSON (an idempotent answer); `None` when it lacks its id or
    /// version.
    pub fn from_stored(stored: &Value) -> Option<View> {
        let id = stored["id"].as_str().and_then(|s| s.parse().ok())?;
        let version = stored["version"].as_i64()?;
        Some(View::render(id, version, stored))
    }

    pub fn id(&self) -> Uuid {
        self.id
    }

    pub fn version(&self) -> i64 {
        self.version
    }

    /// The JSON text.
    pub fn into_json(self) -> String {
        Box::<str>::from(self.json).into()
    }
}

impl Serialize for View {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(s)
    }
}

/// Errors are logged with `Debug`: a view is named, not printed.
impl fmt::Debug for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "View(match {} at version {})", self.id, self.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_view_serializes_as_its_json_and_keeps_id_and_version() {
        let id = Uuid::new_v4();
        let v = View::render(id, 7, &json!({ "id": id, "version": 7, "seats": [1, 2] }));
        assert_eq!((v.id(), v.version()), (id, 7));
        let inside = serde_json::to_value(json!({ "view": v })).unwrap();
        assert_eq!(inside["view"]["seats"], json!([1, 2]));
        assert_eq!(format!("{v:?}"), format!("View(match {id} at version 7)"));
        let again = View::from_stored(&inside["view"]).unwrap();
        assert_eq!((again.id(), again.version()), (id, 7));
        assert!(View::from_stored(&json!({ "version": 7 })).is_none());
    }
}
