//! multipart/form-data responses with a preamble and an epilogue.
