import { alive, findProfile, normalizeUrl, type Profile, profilesPath, readProfiles } from "./profiles.js";

/** Where a command's requests go, with which key, and where each came from (for error messages). */
export interface ConnectionTarget {
  url: string;
  urlSource: string;
  apiKey: string;
  keySource: string;
  workspace: string | undefined;
}

/** The flags and environment that choose a control plane. */
export interface TargetFlags {
  url?: string | undefined;
  apiKey?: string | undefined;
  workspace?: string | undefined;
  profile?: string | undefined;
}

/**
 * Picks the control plane and key: --profile/BERTH_PROFILE, else --url/BERTH_URL, else the current
 * profile, else the default URL. A key saved in a profile goes only to that profile's URL (with an
 * explicit URL it is the key of the profile that has this URL, if any), and a key `berth up` saved
 * only while that berth up runs. An explicit --api-key / BERTH_API_KEY wins over a saved key.
 */
export function resolveTarget(
  flags: TargetFlags,
  defaultUrl: string,
  file = profilesPath(),
): ConnectionTarget {
  const data = readProfiles(file);
  let profileName: string | undefined;
  let url: string;
  let urlSource: string;
  if (flags.profile) {
    profileName = findProfile(data, flags.profile);
    const names = Object.keys(data.profiles);
    if (!profileName) {
      throw new Error(
        `no profile '${flags.profile}' (${names.length ? `known: ${names.join(", ")}` : "none saved yet"}); see berth profile list.`,
      );
    }
    url = (data.profiles[profileName] as Profile).url;
    if (flags.url && normalizeUrl(flags.url) !== normalizeUrl(url)) {
      throw new Error(
        `--profile ${profileName} is the control plane at ${url}, but --url/BERTH_URL says ${flags.url}: give one of them.`,
      );
    }
    urlSource = `profile ${profileName}`;
  } else if (flags.url) {
    url = flags.url;
    urlSource = "--url/BERTH_URL";
    profileName = findProfile(data, url);
  } else if (data.current) {
    profileName = data.current;
    url = (data.profiles[profileName] as Profile).url;
    urlSource = `the current profile ${profileName}`;
  } else {
    url = defaultUrl;
    urlSource = "the default";
    profileName = findProfile(data, url);
  }
  const profile = profileName ? data.profiles[profileName] : undefined;
  // A key `berth up` saved is its own: once that process is gone, whatever listens at the URL now
  // (another berth up, another program) did not issue it. Its next start saves the profile again.
  if (!flags.apiKey && profile?.api_key && profile.pid !== undefined && !alive(profile.pid)) {
    throw new Error(
      `the berth up that issued the key saved for ${normalizeUrl(profile.url)} (profile ${profileName}, pid ${profile.pid}) is not running, so the key is not sent there: start it again, or pass --api-key for whatever listens there now.`,
    );
  }
  const apiKey = flags.apiKey || profile?.api_key;
  if (!apiKey) {
    throw new Error(
      `an API key is required for the control plane at ${normalizeUrl(url)} (URL from ${urlSource}): pass --api-key <key>, set BERTH_API_KEY, or save one with berth profile add <name> --url ${normalizeUrl(url)} --api-key <key> (berth up prints the admin key on first start).`,
    );
  }
  return {
    url: normalizeUrl(url),
    urlSource,
    apiKey,
    keySource: flags.apiKey ? "--api-key/BERTH_API_KEY" : `profile ${profileName}`,
    workspace: flags.workspace || profile?.workspace,
  };
}
