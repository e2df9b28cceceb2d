//! stub
use crate::request::Request;
pub(crate) fn should_request_be_blocked_due_to_bad_port(_r: &Request) -> bool {
    false
}
