//! Confirmed recipients in the web app (issue 37): the scrap editor says
//! that nothing is sent to an address until it confirms, with "Send again";
//! the confirmation link's page confirms on its button.

use std::time::Duration;

use serde_json::json;

use super::browser::WebBrowser;
use super::scrap_page::log_in;
use crate::common::TestApp;
use crate::common::smtp::SmtpServer;

#[tokio::test]
async fn the_editor_shows_a_pending_recipient_until_the_confirm_page_confirms_it() {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    let app = TestApp::start_with(&[("SVC_SMTP_URL", url.as_str())]).await;
    let alice = app.signup("alice@example.com").await;
    let body = json!({"title": "Shop items", "url": "https://example.org/", "request": "returnData([1])",
                      "emailNotif": true, "emailNotifRecipient": "sam@example.com"});
    let sid = app.scrap_with(&alice, body).await;
    let mails = smtp.wait_for(1, Duration::from_secs(30)).await;

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}/edit")).await;
    let note: String = tab.eval("document.getElementById('emailNotifRecipient-pending').textContent").await;
    assert!(note.contains("Waiting for confirmation — nothing is sent until sam@example.com confirms."), "{note}");
    let beside: bool = tab
        .eval(
            "document.getElementById('emailNotifRecipient-pending').closest('.field')\
             .contains(document.getElementById('emailNotifRecipient'))",
        )
        .await;
    assert!(beside, "the notice is next to its field");
    let others: bool = tab.eval("document.getElementById('alert-pending') === null").await;
    assert!(others, "an empty field has no notice");
    tab.screenshots("scrap-editor-pending-recipient").await;

    // Send again within the hour: refused, said so, no second mail.
    tab.click_and_load("Send again").await;
    assert_eq!(tab.path().await, format!("/scraps/{sid}/edit?recipient=recent"));
    let flash: String = tab.eval("document.getElementById('recipient-flash').textContent").await;
    assert!(flash.contains("less than an hour ago"), "{flash}");
    assert_eq!(smtp.messages().len(), 1);

    // The link's page asks; its button confirms.
    let token = mails[0].confirmation_token();
    tab.open(&format!("/recipients/confirm?token={token}")).await;
    let text = tab.text().await;
    assert!(text.contains("Confirm your address") && text.contains("sam@example.com"), "{text}");
    tab.screenshots("recipient-confirm").await;
    tab.click_and_load("Confirm sam@example.com").await;
    assert!(tab.text().await.contains("Address confirmed"));
    tab.screenshots("recipient-confirmed").await;

    tab.open(&format!("/scraps/{sid}/edit")).await;
    let gone: bool = tab.eval("document.getElementById('emailNotifRecipient-pending') === null").await;
    assert!(gone, "confirmed: no notice");
    browser.close().await;
}
