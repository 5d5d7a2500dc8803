//! Validation messages of a form, by the field they belong to, so each
//! appears next to its field while what the user typed stays in place.

use svc_service::ServiceError;

#[derive(Clone, Debug, Default)]
pub struct FieldErrors {
    by_field: Vec<(String, String)>,
    /// A message that belongs to no one field (shown above the form).
    pub general: Option<String>,
}

impl FieldErrors {
    pub fn get(&self, field: &str) -> Option<&str> {
        self.by_field.iter().find(|(f, _)| f == field).map(|(_, m)| m.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.by_field.is_empty() && self.general.is_none()
    }

    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.by_field.push((field.into(), message.into()));
    }

    /// The error of a service call as the form shows it: a validation error
    /// on its field (by wire name), a conflict on `conflict_field`, and
    /// anything the user can act on as a general message. `None` for
    /// failures that are not the form's to show (internal errors, a feature
    /// the server is not set up for).
    pub fn from_service(e: &ServiceError, conflict_field: &str) -> Option<FieldErrors> {
        let mut errors = FieldErrors::default();
        match e {
            ServiceError::Validation { field, message } => errors.add(field.clone(), message.clone()),
            ServiceError::Conflict { message, .. } => errors.add(conflict_field, message.clone()),
            ServiceError::Internal(_) | ServiceError::Unavailable(_) | ServiceError::StoreUnavailable(_) => {
                return None;
            }
            other => errors.general = Some(other.to_string()),
        }
        Some(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_errors_land_on_their_field() {
        let e = FieldErrors::from_service(&ServiceError::validation("cron", "bad"), "email").unwrap();
        assert_eq!(e.get("cron"), Some("bad"));
        assert_eq!(e.get("url"), None);
        let c = FieldErrors::from_service(
            &ServiceError::Conflict { code: "EMAIL_TAKEN", message: "taken".into() },
            "email",
        )
        .unwrap();
        assert_eq!(c.get("email"), Some("taken"));
        let g = FieldErrors::from_service(&ServiceError::InsufficientBalance, "x").unwrap();
        assert!(g.general.is_some() && !g.is_empty());
        assert!(FieldErrors::from_service(&ServiceError::Internal("db".into()), "x").is_none());
    }
}
