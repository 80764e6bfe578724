/** One search result: every hit carries its source (WEB-06). */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}
