//! End-to-end tests of the reader of any web archive (`modoai_archive::any`) on what real
//! crawlers wrote: wget and warcprox crawling the example site served by `modoai serve`, and a
//! WACZ that `wacz create` made of wget's WARC, each read whole and checked against `warcio index`
//! of the same file.

mod producers;
