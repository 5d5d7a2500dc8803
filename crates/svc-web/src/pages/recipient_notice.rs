//! The scrap editor's notices beside recipient fields whose address has not
//! confirmed (issue 37): "waiting for confirmation — nothing is sent until
//! ADDRESS confirms", with "Send again".

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use svc_domain::ScrapId;
use svc_domain::recipient::{RecipientState, normalized};
use svc_domain::scrap::Scrap;
use svc_service::{ServiceError, Services};

use crate::page_error::PageError;
use crate::path_id::PathId;
use crate::signed_in::{SignedForm, SignedIn};

/// A pending address named by a field; `form` is the id of its "Send again" form.
pub(crate) struct PendingNote {
    pub email: String,
    pub form: String,
}

/// The notices of a stored scrap's three recipient fields.
#[derive(Default)]
pub(crate) struct PendingNotes {
    pub result: Option<PendingNote>,
    pub alert: Option<PendingNote>,
    pub digest: Option<PendingNote>,
    /// The distinct pending addresses, each with its form.
    pub forms: Vec<PendingNote>,
    /// What "Send again" just did (`sent`, `recent`).
    pub flash: Option<String>,
}

impl PendingNotes {
    pub(crate) async fn of(
        services: &Services,
        user: &SignedIn,
        scrap: &Scrap,
        flash: Option<String>,
    ) -> Result<Self, PageError> {
        let pending: Vec<String> = services
            .recipients
            .all(&user.session)
            .await?
            .into_iter()
            .filter(|r| r.state == RecipientState::Pending)
            .map(|r| r.email)
            .collect();
        let mut notes = PendingNotes { flash, ..PendingNotes::default() };
        let mut note = |value: &Option<String>| -> Option<PendingNote> {
            let email = normalized(value.as_deref()?);
            let index = pending.iter().position(|p| *p == email)?;
            let form = format!("resend-{index}");
            if !notes.forms.iter().any(|f| f.form == form) {
                notes.forms.push(PendingNote { email: email.clone(), form: form.clone() });
            }
            Some(PendingNote { email, form })
        };
        let (result, alert, digest) =
            (note(&scrap.email_notif_recipient), note(&scrap.alert), note(&scrap.digest_recipient));
        notes.result = result;
        notes.alert = alert;
        notes.digest = digest;
        Ok(notes)
    }
}

#[derive(Deserialize)]
pub(crate) struct ResendForm {
    #[serde(default)]
    email: String,
}

/// `POST /scraps/:id/recipients/resend`: "Send again", back to the editor.
pub(crate) async fn resend(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, form }: SignedForm<ResendForm>,
) -> Result<Response, PageError> {
    let PathId(id) = id?;
    // The scrap must be the organization's (else 404).
    services.scraps.get(&user.principal(), id).await?;
    let outcome = match services.recipients.send_again(&user.session, &form.email).await {
        Ok(_) => "sent",
        Err(ServiceError::Conflict { code: "CONFIRMATION_RECENTLY_SENT", .. }) => "recent",
        Err(ServiceError::Conflict { code: "ALREADY_CONFIRMED", .. }) => "confirmed",
        Err(e) => return Err(e.into()),
    };
    Ok(Redirect::to(&format!("/scraps/{id}/edit?recipient={outcome}#email")).into_response())
}
