//! stub
use crate::error::NetworkError;
use crate::request::Request;
use crate::response::Response;
/// stub
#[derive(Default)]
pub struct CorsPreflightCache;
impl CorsPreflightCache {
    pub(crate) fn method_cache_entry_match(&self, _m: &str, _r: &Request) -> bool {
        false
    }
    pub(crate) fn header_name_cache_entry_match(&self, _m: &[u8], _r: &Request) -> bool {
        false
    }
    pub(crate) fn clear_cache_entries(&self, _r: &Request) {}
}
pub(crate) fn set_cors_exposed_header_names(_r: &Request, _s: &mut Response) {}
pub(crate) fn cors_check(_r: &Request, _s: &Response) -> bool {
    true
}
pub(crate) fn cors_preflight_request(r: &Request) -> Request {
    r.copy_without_body()
}
pub(crate) fn check_cors_preflight_response(
    _r: &Request,
    _s: &Response,
    _c: &CorsPreflightCache,
) -> Result<(), NetworkError> {
    Ok(())
}
pub(crate) fn append_request_origin_header(_r: &mut Request) {}
