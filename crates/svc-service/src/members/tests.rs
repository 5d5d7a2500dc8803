use std::net::{IpAddr, Ipv4Addr};

use svc_domain::member::Role;
use svc_domain::scope::Scope;

use super::*;
use crate::Principal;
use crate::accounts::keys::NewKey;
use crate::accounts::{Login, Signup, SignupMode};
use crate::members::NewInvite;
use crate::testing::{TestServices, TestUser};

const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// A key as the web app makes them: every action.
fn key(name: &str) -> NewKey {
    NewKey { name: name.into(), expires_at: None, scopes: vec![], scrap_ids: vec![] }
}

fn forbidden<T>(r: Result<T>) -> String {
    match r {
        Err(ServiceError::Forbidden(m)) => m,
        Err(e) => panic!("expected 403, got {e:?}"),
        Ok(_) => panic!("expected 403, got success"),
    }
}

/// Invites `email` into `by`'s organization with `role`; the invitee (who
/// has an account) accepts: their session there.
async fn join(t: &TestServices, by: &TestUser, invitee: &TestUser, email: &str, role: Role) -> Session {
    let created = t.services.members.invite(&by.session, NewInvite { email: email.into(), role }).await.unwrap();
    let token = created.link.split("token=").nth(1).unwrap();
    let accepted = t.services.members.accept(&invitee.session, token, &LOCAL.into()).await.unwrap();
    assert_eq!((accepted.organization.id, accepted.role), (by.session.org(), role));
    t.services.auth.session(&accepted.token.token).await.unwrap()
}

#[tokio::test]
async fn roles_bound_sessions_and_keys_and_removal_ends_both() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let bob = t.signup("bob@example.com").await;
    let cat = t.signup("cat@example.com").await;
    let scrap = t.scrap(&ada, "Prices").await;

    let bob_there = join(&t, &ada, &bob, "bob@example.com", Role::Editor).await;
    let cat_there = join(&t, &ada, &cat, "cat@example.com", Role::Viewer).await;
    assert_eq!((bob_there.org(), bob_there.role()), (ada.session.org(), Role::Editor));
    let listed = t.services.members.list(&cat_there, PageRequest::default()).await.unwrap();
    assert_eq!(listed.items.iter().map(|m| m.role).collect::<Vec<_>>(), vec![Role::Owner, Role::Editor, Role::Viewer]);

    // The editor edits; the viewer reads but neither edits nor runs, and
    // nor does a key the viewer makes.
    let changes = || crate::scraps::input::ScrapChanges { title: Some("Prices 2".into()), ..Default::default() };
    t.services.scraps.update(&bob_there, scrap, changes()).await.unwrap();
    assert_eq!(
        forbidden(t.services.scraps.update(&cat_there, scrap, changes()).await),
        "the viewer role may not create, edit or delete scraps"
    );
    let cat_key = t.services.keys.create(&cat_there, key("cat's")).await.unwrap();
    let principal = t.services.auth.principal(&cat_key.plain_key).await.unwrap();
    assert!(principal.require(&[Scope::ScrapsRead]).is_ok());
    assert_eq!(forbidden(principal.require(&[Scope::ScrapsRun])), "the viewer role may not run scraps");
    assert!(Principal::from(cat_there.clone()).require(&[Scope::ScrapsRun]).is_err());

    // Members management: only admins and owners; only owners touch owners.
    let refused =
        t.services.members.invite(&bob_there, NewInvite { email: "x@example.com".into(), role: Role::Viewer });
    assert_eq!(forbidden(refused.await), "the editor role may not manage members");
    t.services.members.set_role(&ada.session, bob.session.user(), Role::Admin).await.unwrap();
    let bob_admin = t
        .services
        .auth
        .session(&t.services.members.switch(&bob.session, ada.session.org(), &LOCAL.into()).await.unwrap().token)
        .await
        .unwrap();
    assert_eq!(bob_admin.role(), Role::Admin);
    assert_eq!(
        forbidden(t.services.members.set_role(&bob_admin, ada.session.user(), Role::Viewer).await),
        "the admin role may not manage owners"
    );
    assert!(
        forbidden(t.services.members.set_role(&bob_admin, cat.session.user(), Role::Owner).await).contains("owners")
    );
    let bob_key = t.services.keys.create(&bob_admin, key("bob's")).await.unwrap();
    assert!(t.services.auth.principal(&bob_key.plain_key).await.unwrap().require(&[Scope::ScrapsRun]).is_ok());

    // The last owner stays.
    match t.services.members.set_role(&ada.session, ada.session.user(), Role::Admin).await {
        Err(ServiceError::Conflict { code: "LAST_OWNER", .. }) => {}
        other => panic!("unexpected {other:?}"),
    }
    assert!(matches!(
        t.services.members.remove(&ada.session, ada.session.user()).await,
        Err(ServiceError::Conflict { code: "LAST_OWNER", .. })
    ));

    // Removing Bob ends his sessions there and his keys made there, at once.
    t.services.members.remove(&ada.session, bob.session.user()).await.unwrap();
    assert!(matches!(t.services.auth.session(&bob_key.plain_key).await, Err(ServiceError::SessionRequired(_))));
    assert!(matches!(t.services.auth.principal(&bob_key.plain_key).await, Err(ServiceError::Unauthorized(_))));
    assert!(t.services.auth.session(&bob.token).await.is_ok(), "his own organization's session lives on");
    let members = t.services.members.list(&ada.session, PageRequest::default()).await.unwrap();
    assert_eq!(members.total, 2);
    // Cat leaves by herself.
    t.services.members.remove(&cat_there, cat.session.user()).await.unwrap();
    assert!(t.services.members.list(&ada.session, PageRequest::default()).await.unwrap().total == 1);
}

#[tokio::test]
async fn invites_are_for_their_address_once_and_login_picks_an_organization() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let bob = t.signup("bob@example.com").await;
    let eve = t.signup("eve@example.com").await;
    let created = t
        .services
        .members
        .invite(&ada.session, NewInvite { email: " Bob@Example.com ".into(), role: Role::Viewer })
        .await
        .unwrap();
    assert_eq!(created.invite.email, "bob@example.com");
    assert!(created.link.starts_with("http://127.0.0.1:8080/invites/accept?token="));
    assert!(!created.emailed, "no email on a server without SMTP");
    let token = created.link.split("token=").nth(1).unwrap().to_string();
    assert_eq!(t.services.members.invites(&ada.session, PageRequest::default()).await.unwrap().total, 1);

    assert!(
        forbidden(t.services.members.accept(&eve.session, &token, &LOCAL.into()).await).contains("another address")
    );
    let joined = t.services.members.accept(&bob.session, &token, &LOCAL.into()).await.unwrap();
    assert_eq!(joined.role, Role::Viewer);
    assert!(matches!(
        t.services.members.accept(&bob.session, &token, &LOCAL.into()).await,
        Err(ServiceError::NotFound(_))
    ));
    assert!(matches!(
        t.services
            .members
            .invite(&ada.session, NewInvite { email: "bob@example.com".into(), role: Role::Editor })
            .await,
        Err(ServiceError::Conflict { code: "ALREADY_MEMBER", .. })
    ));

    // Log-in enters the organization used last (the one joined), or the
    // one asked for among the user's; another one is refused.
    let login = |org| Login { email: "bob@example.com".into(), password: "password-123".into(), organization: org };
    let last = t.services.accounts.login(login(None), LOCAL).await.unwrap();
    assert_eq!(t.services.auth.session(&last.token).await.unwrap().org(), ada.session.org());
    let own = t.services.accounts.login(login(Some(bob.session.org())), LOCAL).await.unwrap();
    assert_eq!(t.services.auth.session(&own.token).await.unwrap().org(), bob.session.org());
    assert!(forbidden(t.services.accounts.login(login(Some(eve.session.org())), LOCAL).await).contains("not a member"));
    let mine = t.services.members.memberships(&bob.session).await.unwrap();
    assert_eq!(mine.len(), 2);

    // A withdrawn invitation's link stops working.
    let withdrawn = t
        .services
        .members
        .invite(&ada.session, NewInvite { email: "eve@example.com".into(), role: Role::Editor })
        .await
        .unwrap();
    t.services.members.withdraw(&ada.session, withdrawn.invite.id).await.unwrap();
    let token = withdrawn.link.split("token=").nth(1).unwrap();
    assert!(matches!(
        t.services.members.accept(&eve.session, token, &LOCAL.into()).await,
        Err(ServiceError::NotFound(_))
    ));
    assert!(matches!(
        t.services.members.withdraw(&ada.session, withdrawn.invite.id).await,
        Err(ServiceError::NotFound(_))
    ));
}

#[tokio::test]
async fn invite_mode_admits_only_invited_addresses() {
    let t = TestServices::start_with_signup(SignupMode::Invite).await;
    let signup = |email: &str| Signup { email: email.into(), password: "password-123".into(), name: None };
    assert!(forbidden(t.services.accounts.signup(signup("ada@example.com"), LOCAL).await).contains("invitation"));
    // An operator-made first account (here: signed up while open) invites.
    let ada = t.signup_anyway("ada@example.com").await;
    t.services
        .members
        .invite(&ada.session, NewInvite { email: "bob@example.com".into(), role: Role::Editor })
        .await
        .unwrap();
    t.services.accounts.signup(signup("Bob@example.com"), LOCAL).await.expect("an invited address signs up");
}
