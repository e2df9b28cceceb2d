//! Native operations behind `js/url.js`: URL parsing and setters from the `url` crate
//! (<https://url.spec.whatwg.org/>), and application/x-www-form-urlencoded.

use rquickjs::{Ctx, Function, Object};
use url::{Url, quirks};

/// The URL record as the JS layer reads it, in `FIELDS` order of url.js.
fn components(url: &Url) -> Vec<String> {
    vec![
        quirks::href(url).to_owned(),
        quirks::origin(url),
        quirks::protocol(url).to_owned(),
        quirks::username(url).to_owned(),
        quirks::password(url).to_owned(),
        quirks::host(url).to_owned(),
        quirks::hostname(url).to_owned(),
        quirks::port(url).to_owned(),
        quirks::pathname(url).to_owned(),
        quirks::search(url).to_owned(),
        quirks::hash(url).to_owned(),
    ]
}

/// <https://url.spec.whatwg.org/#api-url-parser>: `None` on failure.
pub fn parse(input: &str, base: Option<&str>) -> Option<Vec<String>> {
    let base = match base {
        Some(b) => Some(Url::parse(b).ok()?),
        None => None,
    };
    Url::options()
        .base_url(base.as_ref())
        .parse(input)
        .ok()
        .map(|u| components(&u))
}

/// Applies the setter named `field` to `href`. Setters that fail leave the URL unchanged,
/// as the spec's setters do. Returns `None` only if `href` itself does not parse.
pub fn set(href: &str, field: &str, value: &str) -> Option<Vec<String>> {
    let mut url = Url::parse(href).ok()?;
    let _ = match field {
        "protocol" => quirks::set_protocol(&mut url, value),
        "username" => quirks::set_username(&mut url, value),
        "password" => quirks::set_password(&mut url, value),
        "host" => quirks::set_host(&mut url, value),
        "hostname" => quirks::set_hostname(&mut url, value),
        "port" => quirks::set_port(&mut url, value),
        "pathname" => {
            quirks::set_pathname(&mut url, value);
            Ok(())
        }
        "search" => {
            quirks::set_search(&mut url, value);
            Ok(())
        }
        "hash" => {
            quirks::set_hash(&mut url, value);
            Ok(())
        }
        // URLSearchParams' update steps: set the query to the serialization, or null when
        // it is empty (https://url.spec.whatwg.org/#concept-urlsearchparams-update).
        "query" => {
            url.set_query(if value.is_empty() { None } else { Some(value) });
            Ok(())
        }
        _ => Err(()),
    };
    Some(components(&url))
}

/// <https://url.spec.whatwg.org/#concept-urlencoded-parser>
pub fn urlencoded_parse(input: &str) -> Vec<Vec<String>> {
    url::form_urlencoded::parse(input.as_bytes())
        .map(|(k, v)| vec![k.into_owned(), v.into_owned()])
        .collect()
}

/// <https://url.spec.whatwg.org/#concept-urlencoded-serializer>
pub fn urlencoded_serialize(pairs: &[Vec<String>]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for pair in pairs {
        if let [k, v] = pair.as_slice() {
            s.append_pair(k, v);
        }
    }
    s.finish()
}

/// Registers `url_parse`, `url_set`, `urlencoded_parse` and `urlencoded_serialize`.
pub fn register<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> rquickjs::Result<()> {
    native.set(
        "url_parse",
        Function::new(ctx.clone(), |input: String, base: Option<String>| {
            parse(&input, base.as_deref())
        })?,
    )?;
    native.set(
        "url_set",
        Function::new(ctx.clone(), |href: String, field: String, value: String| {
            set(&href, &field, &value)
        })?,
    )?;
    native.set(
        "urlencoded_parse",
        Function::new(ctx.clone(), |input: String| urlencoded_parse(&input))?,
    )?;
    native.set(
        "urlencoded_serialize",
        Function::new(ctx.clone(), |pairs: Vec<Vec<String>>| {
            urlencoded_serialize(&pairs)
        })?,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_against_a_base() {
        let c = parse("../b?x=1#f", Some("http://web-platform.test:8000/a/c/d")).unwrap();
        assert_eq!(c[0], "http://web-platform.test:8000/a/b?x=1#f");
        assert_eq!(c[1], "http://web-platform.test:8000");
        assert_eq!(c[7], "8000");
        assert!(parse("not a url", None).is_none());
    }

    #[test]
    fn query_update_and_urlencoded_round_trip() {
        let pairs = urlencoded_parse("a=b+c&d=%26");
        assert_eq!(
            pairs,
            vec![
                vec!["a".to_owned(), "b c".to_owned()],
                vec!["d".to_owned(), "&".to_owned()]
            ]
        );
        assert_eq!(urlencoded_serialize(&pairs), "a=b+c&d=%26");
        let c = set("http://x/?q", "query", "").unwrap();
        assert_eq!(c[0], "http://x/");
    }
}
