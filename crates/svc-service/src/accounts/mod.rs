//! Accounts: who may come in and what they may do. The authenticated
//! caller as services see it (`principal`), sign-up, log-in and a user's own
//! account (`users`), sessions and JWTs (`auth`, `jwt`, `password`,
//! `sessions`), API keys and their cache (`keys`, `key_cache`,
//! `key_material`) and the scraps they are limited to (`allow_list`), the
//! organization and its audit log (`organization`, `audit`), the rate limits
//! and their algorithms (`rate_limits`, `gcra`, `sliding_log`,
//! `client_address`), and the operator's commands (`admin`).

pub mod admin;
pub(crate) mod allow_list;
pub mod audit;
pub mod auth;
pub mod client_address;
pub mod gcra;
pub mod jwt;
pub mod key_cache;
pub mod key_material;
pub mod keys;
pub mod organization;
pub mod password;
pub mod principal;
pub mod rate_limits;
pub mod sessions;
pub mod sliding_log;
mod users;

pub use users::{AccountService, HASHING_AT_ONCE, IssuedToken, Login, SignedUp, Signup, SignupMode};
