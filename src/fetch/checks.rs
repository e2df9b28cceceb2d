//! stub
use crate::request::Request;
use crate::response::Response;
pub(crate) fn should_response_be_blocked_due_to_mime_type(_s: &Response, _r: &Request) -> bool {
    false
}
pub(crate) fn should_response_be_blocked_due_to_nosniff(_s: &Response, _r: &Request) -> bool {
    false
}
pub(crate) fn cross_origin_resource_policy_check(_r: &Request, _s: &Response) -> bool {
    true
}
