//! Unit tests.

use super::*;
