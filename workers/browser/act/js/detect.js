// Signs of a CAPTCHA / bot challenge and of a regional block on the current page.
() => {
  const html = document.documentElement.innerHTML.slice(0, 400000).toLowerCase();
  const text = (document.body ? document.body.innerText : '').slice(0, 20000).toLowerCase();
  const title = document.title.toLowerCase();
  const frames = [...document.querySelectorAll('iframe')].map((f) => (f.src || '').toLowerCase());
  const captcha = [
    ['recaptcha', frames.some((s) => s.includes('recaptcha')) || !!document.querySelector('.g-recaptcha, [data-sitekey]')],
    ['hcaptcha', frames.some((s) => s.includes('hcaptcha')) || !!document.querySelector('.h-captcha')],
    ['turnstile', frames.some((s) => s.includes('challenges.cloudflare.com')) || !!document.querySelector('.cf-turnstile')],
    ['cloudflare_interstitial', title.includes('just a moment') || html.includes('cf-browser-verification') || html.includes('cf_chl_')],
    ['text_challenge', /verify (that )?you are (a )?human|i'?m not a robot|are you a robot|unusual traffic/.test(text)],
    ['image_captcha', !!document.querySelector('img[src*=captcha i], input[name*=captcha i]')],
  ].filter(([, on]) => on).map(([k]) => k);
  const geoPatterns = [/not available in your (country|region|location)/, /unavailable in your (country|region)/,
    /(this|the) (content|service|site|page) is not available (in|from) /, /access (from your (country|region|location) )?(is )?(denied|restricted|blocked)/,
    /error 451|unavailable for legal reasons/, /we (do not|don't) (currently )?(operate|serve|ship) (in|to) your (country|region)/];
  const geo = geoPatterns.filter((p) => p.test(text) || p.test(title)).map((p) => (text.match(p) || title.match(p))[0]);
  return { captcha, geo };
}
