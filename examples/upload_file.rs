//! Uploads files from disk as `multipart/form-data`, streamed: each file is read 64 KiB at a
//! time as the body is sent, never whole into memory.
//!
//! ```text
//! cargo run -p examples --example upload_file -- URL PATH... [--field NAME=VALUE]... [--stdin NAME]
//!
//!   PATH                 a file to send as a part named "file" (its name and a type
//!                        guessed from its extension go with it)
//!   --field NAME=VALUE   a text field sent before the files
//!   --stdin NAME         also send standard input, read once, as a part named "stdin"
//!                        whose file name is NAME (the body is then sent chunked)
//! ```
//!
//! For example, against a server that echoes what it gets:
//!
//! ```text
//! cargo run -p examples --example upload_file -- https://httpbin.org/post ./photo.png --field title=Beach
//! ```

use whatwg_fetch::form_data::{FormData, StreamedFile};
use whatwg_fetch::{Client, Error};

const USAGE: &str = "usage: upload_file URL PATH... [--field NAME=VALUE]... [--stdin NAME]";

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(message) = run().await {
        eprintln!("upload_file: {message}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or(USAGE)?;
    let mut fields = Vec::new();
    let mut paths = Vec::new();
    let mut stdin = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--field" => {
                let field = args.next().ok_or(USAGE)?;
                let (name, value) = field.split_once('=').ok_or(USAGE)?;
                fields.push((name.to_owned(), value.to_owned()));
            }
            "--stdin" => stdin = Some(args.next().ok_or(USAGE)?),
            "-h" | "--help" => return Err(USAGE.to_owned()),
            path => paths.push(path.to_owned()),
        }
    }
    if paths.is_empty() && stdin.is_none() {
        return Err(USAGE.to_owned());
    }

    let mut form = FormData::new();
    for (name, value) in &fields {
        form.append(name, value);
    }
    for path in &paths {
        // Reads the file's metadata only: its name, size and modification time. A missing
        // file is a NotFoundError naming the path.
        form.append_file("file", path).await.map_err(describe)?;
    }
    if let Some(name) = stdin {
        // A reader of unknown length: the body has no Content-Length and goes chunked.
        form.append_streamed_file("stdin", StreamedFile::reader(tokio::io::stdin(), name));
    }
    for (_, value) in form.iter() {
        if let Some(file) = value.as_file() {
            eprintln!(
                "sending {} ({} bytes, {:?})",
                file.name(),
                file.size(),
                file.r#type()
            );
        }
    }

    let client = Client::builder().build().map_err(describe)?;
    // A file changed on disk since it was added fails the upload with a NotReadableError
    // naming it, rather than send a shorter or mixed body.
    let mut response = client
        .post(&url)
        .multipart(form)
        .send()
        .await
        .map_err(describe)?;
    eprintln!("{} {}", response.status(), response.status_text());
    let text = response.text().await.map_err(describe)?;
    println!("{text}");
    Ok(())
}

/// The error and its causes on one line.
fn describe(error: Error) -> String {
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(&error);
    while let Some(error) = cause {
        let message = error.to_string();
        if !text.ends_with(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        cause = error.source();
    }
    text
}
