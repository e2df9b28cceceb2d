//! Caps on the decoded bytes a response body may deliver.
