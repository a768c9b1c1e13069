//! Spinners and bars on long work.

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// A spinner with a message and the elapsed time.
pub fn spinner(msg: &str) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.set_message(msg.to_owned());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// A bar of `len` steps with a message and the elapsed time.
pub fn bar(len: usize) -> ProgressBar {
    styled_bar(len, "{bar:30} {pos}/{len} {msg} [{elapsed}]")
}

/// A bar of `len` steps with a message.
pub fn plain_bar(len: usize) -> ProgressBar {
    styled_bar(len, "{bar:30} {pos}/{len} {msg}")
}

fn styled_bar(len: usize, template: &str) -> ProgressBar {
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}
