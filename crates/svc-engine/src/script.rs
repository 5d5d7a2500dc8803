//! What both engines' script wrappers share: the result cap and the words
//! for a script that does not compile. The wrappers themselves differ
//! (svc-runner's runs in a page's isolated world and reads its outcome back
//! field by field; svc-static's runs in QuickJS), and svc-static's
//! compatibility test holds their behaviour together.

/// Largest result, in characters of JSON, accepted from `returnData`.
pub const MAX_RESULT_CHARS: usize = 10 * 1024 * 1024;

/// How a script that does not compile is reported, before the engine's
/// "SyntaxError: ...": the same words as before the script runs at all.
pub const NOT_RUN: &str = "the script could not run: ";
