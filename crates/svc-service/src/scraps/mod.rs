//! Scraps: the jobs themselves. Creating, changing and reading them and
//! their versions and activity (`service`), the rules a scrap's fields
//! follow (`input`), its site login (`site_accounts`) and its proxy tier
//! (`proxy_tiers`), its banner image (`banner`, what an image must be to
//! become one in `banner_image`).

pub mod banner;
pub mod banner_image;
pub mod input;
pub mod proxy_tiers;
mod service;
pub mod site_accounts;

pub(crate) use service::authorize_scrap;
pub use service::{MAX_PREVIEW, MAX_SEARCH, ScrapOverview, ScrapService};
