//! stub
use crate::request::Request;
use crate::response::Response;
pub(crate) fn apply_default_referrer_policy(_r: &mut Request) {}
pub(crate) fn determine_request_referrer(_r: &Request) -> Option<url::Url> {
    None
}
pub(crate) fn set_request_referrer_policy_on_redirect(_r: &mut Request, _s: &Response) {}
