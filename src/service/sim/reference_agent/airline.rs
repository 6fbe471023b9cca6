//! The airline rebooking desk and the generic receptionist.

use super::has;

pub(super) fn reply(text: &str) -> String {
    if has(text, &["confirmation", "booking", "code", "reference"]) && text.chars().any(|c| c.is_ascii_digit()) {
        "Thank you, I found your booking. The first available seat is on the 7:05 AM flight tomorrow, or 6:40 PM today on standby. Which would you like?".into()
    } else if has(text, &["cancel", "delay", "missed", "rebook", "flight"]) {
        "I'm sorry about the disruption. Can I have your six-character confirmation code?".into()
    } else if has(text, &["hotel", "voucher", "meal", "compensation", "refund"]) {
        "For weather disruptions we can't issue a voucher, but I can offer a discounted rate at partner hotels or a full refund of the unused segment.".into()
    } else if has(text, &["7:05", "morning", "tomorrow", "tonight", "standby", "that one", "works", "take"]) {
        "Done, you're rebooked and your new boarding pass is on its way by email.".into()
    } else if has(text, &["seat", "aisle", "window"]) {
        "I have aisle seat 14C available and I've assigned it to you.".into()
    } else {
        "I understand. Could you tell me what happened with your trip?".into()
    }
}

pub(super) fn generic(text: &str) -> String {
    if text.contains('?') {
        "That's a good question. Let me look into it and get back to you right away.".into()
    } else {
        "I understand. How else can I help?".into()
    }
}
