//! A run's data in the shapes people read: a grid of columns, CSV, and JSON
//! cut or pretty-printed. Pure functions, shared by the web app's tables and
//! downloads and by result emails.

pub mod csv;
pub mod diff;
pub mod grid;
pub mod json_text;
