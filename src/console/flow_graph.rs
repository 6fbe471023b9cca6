//! Placeholder until the flow graph lands.
