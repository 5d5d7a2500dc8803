//! `svc members`: who is in the organization, with which role.

use std::process::ExitCode;

use svc_client::Client;

use super::output::{self, Format};
use super::{OK, fail};

pub(crate) async fn list(client: &Client, format: Format, page: Option<i64>, per_page: Option<i64>) -> ExitCode {
    match client.members(page, per_page).await {
        Ok(list) => {
            match format {
                Format::Json => output::json(&list),
                Format::Quiet => list.data.iter().for_each(|m| println!("{}", m.user_id)),
                Format::Table => {
                    let rows = list
                        .data
                        .iter()
                        .map(|m| {
                            vec![
                                m.user_id.clone(),
                                m.email.clone(),
                                m.name.clone(),
                                m.role.clone(),
                                m.joined_at.clone(),
                            ]
                        })
                        .collect();
                    output::table(&["USER ID", "EMAIL", "NAME", "ROLE", "JOINED"], rows);
                }
            }
            ExitCode::from(OK)
        }
        Err(e) => fail(&e),
    }
}
