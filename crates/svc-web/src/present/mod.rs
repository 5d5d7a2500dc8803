//! How values are shown to people: schedules in words, times, run states.
//! Pure functions, so each is tested without a browser.

pub mod activity;
pub mod actor;
pub mod audit;
pub mod banner;
pub mod data_table;
pub mod delivery_state;
pub mod device;
pub mod feed_xml;
pub mod plans;
pub mod run_chart;
pub mod run_pages;
pub mod run_status;
pub mod schedule_words;
pub mod scopes;
pub mod script_diff;
pub mod site_login;
pub mod test_run;
pub mod versions;
pub mod when;
